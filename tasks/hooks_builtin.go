package tasks

import "fmt"

// The Python functions of lm-eval's own task files that goeval's built-in
// tasks already implement, registered under their lm-eval names, so that
// lm-eval's hellaswag.yaml, winogrande/default.yaml, wikitext.yaml,
// drop/default.yaml and hendrycks_math_*.yaml (or a user's copies of them)
// run as YAML tasks with the built-ins' exact behaviour.

func init() {
	registerBuiltinHook("hellaswag.utils.process_docs", mapDocs(hellaswagProcess), "query", "choices", "gold")
	registerBuiltinHook("drop.utils.process_docs", mapDocs(dropProcess), "id", "answers")
	registerBuiltinHook("drop.utils.process_results", builtinResults("drop"))
	registerBuiltinHook("hendrycks_math.utils.process_docs", mapDocs(mathProcess(nil)), "answer")
	registerBuiltinHook("hendrycks_math.utils.process_results", builtinResults("hendrycks_math_algebra"))
	registerBuiltinHook("wikitext.preprocess_wikitext.wikitext_detokenizer", func(d Doc) (any, error) {
		p, err := str(d, "page")
		return wikitextDetokenize(p), err
	})
	registerBuiltinHook("wikitext.preprocess_wikitext.process_results", builtinResults("wikitext"))
	registerBuiltinHook("winogrande.preprocess_winogrande.doc_to_text", func(d Doc) (any, error) {
		return intAny(builtin("winogrande").goldIdx(d))
	})
	registerBuiltinHook("winogrande.preprocess_winogrande.doc_to_target", func(d Doc) (any, error) {
		return builtin("winogrande").target(d)
	})
	registerBuiltinHook("winogrande.preprocess_winogrande.doc_to_choice", func(d Doc) (any, error) {
		c, err := builtin("winogrande").choices(d)
		out := make([]any, len(c))
		for i, x := range c {
			out[i] = x
		}
		return out, err
	})
}

// mapDocs makes a per-document process function a process_docs hook.
func mapDocs(fn func(Doc) (Doc, error)) DocsHook {
	return func(docs []Doc) ([]Doc, error) {
		out := make([]Doc, len(docs))
		for i, d := range docs {
			p, err := fn(d)
			if err != nil {
				return nil, fmt.Errorf("document %d: %w", i, err)
			}
			out[i] = p
		}
		return out, nil
	}
}
