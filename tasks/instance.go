package tasks

import (
	"fmt"
	"maps"

	"github.com/goeval/goeval/internal/py"
)

// fewshotMessages renders the system prompt and k few-shot turns for doc.
func (s *spec) fewshotMessages(opts Options, fs *sampler, k int, doc Doc) ([]message, error) {
	var msgs []message
	desc := ""
	if s.description != nil {
		var err error
		if desc, err = s.description(doc); err != nil {
			return nil, err
		}
	}
	if sys := maybeDelimit(opts.SystemInstruction, desc, s.fewDelim); sys != "" {
		msgs = append(msgs, message{"system", sys, ""})
	}
	var evalDoc Doc
	if fs.withEval {
		evalDoc = doc
	}
	shots, err := fs.sample(k, evalDoc)
	if err != nil {
		return nil, err
	}
	tgtDelim, fewDelim, prefix := s.targetDelim, s.fewDelim, s.genPrefix
	if s.fewshot != nil {
		tgtDelim, fewDelim, prefix = s.fewshot.targetDelim, s.fewshot.fewDelim, s.fewshot.genPrefix
	}
	for _, d := range shots {
		q, c, a, err := s.qca(d)
		if err != nil {
			return nil, err
		}
		gp, err := resolveField(prefix, d, s.keyOrder)
		if err != nil {
			return nil, fmt.Errorf("gen_prefix: %w", err)
		}
		turn, err := qaTurn(q, c, a, gp, tgtDelim, fewDelim)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, turn...)
	}
	return msgs, nil
}

// qca resolves a few-shot doc's question, choices and answer; for
// multiple-input tasks the question is the gold context and no choices.
func (s *spec) qca(d Doc) (string, []string, any, error) {
	f := fewshotFmt{text: s.text, goldIdx: s.goldIdx, target: s.target, choices: s.choices}
	if s.fewshot != nil {
		f = *s.fewshot
	}
	var c []string
	var err error
	if f.choices != nil {
		if c, err = f.choices(d); err != nil {
			return "", nil, nil, err
		}
	}
	a, err := f.target(d)
	if err != nil {
		return "", nil, nil, err
	}
	if s.multiInput {
		g, err := f.goldIdx(d)
		if err != nil {
			return "", nil, nil, err
		}
		if g < 0 || g >= len(c) {
			return "", nil, nil, fmt.Errorf("few-shot context index %d out of range for %d choices", g, len(c))
		}
		return c[g], nil, a, nil
	}
	q, err := f.text(d)
	return q, c, a, err
}

// instance builds doc's prompt(s) and requests.
func (s *spec) instance(opts Options, fs *sampler, k, id int, doc Doc) (Instance, error) {
	inst := Instance{DocID: id, Doc: doc}
	msgs, err := s.fewshotMessages(opts, fs, k, doc)
	if err != nil {
		return inst, err
	}
	tgt, err := s.target(doc)
	if err != nil {
		return inst, err
	}
	inst.Target = tgt
	var choices []string
	if s.choices != nil {
		if choices, err = s.choices(doc); err != nil {
			return inst, err
		}
	}
	gp, err := resolveField(s.genPrefix, doc, s.keyOrder)
	if err != nil {
		return inst, fmt.Errorf("gen_prefix: %w", err)
	}
	delim := s.targetDelim
	if opts.ApplyChatTemplate && (s.genPrefix == "" || endsWithSpace(s.genPrefix)) {
		delim = "" // lm-eval keeps the delimiter only after a gen_prefix that does not end in whitespace
	}
	if s.multiInput {
		g, err := s.goldIdx(doc)
		if err != nil {
			return inst, err
		}
		_ = g // validated here; the gold index is doc_to_text, scored in Process
		for _, c := range choices {
			turn, _ := qaTurn(c, nil, nil, gp, "", "")
			ctx, err := render(opts, append(append([]message{}, msgs...), turn...))
			if err != nil {
				return inst, err
			}
			cont, err := targetString(tgt)
			if err != nil {
				return inst, err
			}
			inst.Requests = append(inst.Requests, Request{Kind: ReqLoglikelihood, Context: ctx, Continuation: delim + cont})
		}
		return inst, nil
	}
	q, err := s.text(doc)
	if err != nil {
		return inst, err
	}
	turn, _ := qaTurn(q, nil, nil, gp, s.targetDelim, "")
	ctx, err := render(opts, append(msgs, turn...))
	if err != nil {
		return inst, err
	}
	switch s.output {
	case MultipleChoice:
		for _, c := range choices {
			inst.Requests = append(inst.Requests, Request{Kind: ReqLoglikelihood, Context: ctx, Continuation: delim + c})
		}
	case Loglikelihood:
		cont, err := targetString(tgt)
		if err != nil {
			return inst, err
		}
		inst.Requests = []Request{{Kind: ReqLoglikelihood, Context: ctx, Continuation: cont}}
	case LoglikelihoodRolling:
		text, err := targetString(tgt)
		if err != nil {
			return inst, err
		}
		inst.Requests = []Request{{Kind: ReqRolling, Text: text}}
	case GenerateUntil:
		inst.Requests = []Request{s.genRequest(opts, ctx)}
	}
	return inst, nil
}

// genRequest applies --gen-kwargs (dict.update) to the task's
// generation_kwargs.
func (s *spec) genRequest(opts Options, ctx string) Request {
	kw := maps.Clone(s.genKwargs)
	keys := append([]string{}, s.genKeys...)
	for k, v := range opts.GenKwargs {
		if _, ok := kw[k]; !ok {
			keys = append(keys, k)
		}
		kw[k] = v
	}
	r := Request{Kind: ReqGenerate, Context: ctx, GenKwargs: kw, GenKeys: keys, MaxTokens: 256, Repeats: s.repeats}
	switch u := kw["until"].(type) {
	case []string:
		r.Until = u
	case string:
		r.Until = []string{u}
	case []any:
		for _, x := range u {
			if str, ok := x.(string); ok {
				r.Until = append(r.Until, str)
			}
		}
	}
	for _, key := range []string{"max_gen_toks", "max_new_tokens", "max_tokens", "max_completion_tokens"} {
		if v, ok := toInt(kw[key]); ok {
			r.MaxTokens = v
			break
		}
	}
	return r
}

func toInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case float64:
		return int(x), true
	}
	return 0, false
}

// targetString is a target used as text (a continuation, a rolling text).
func targetString(tgt any) (string, error) {
	s, ok := tgt.(string)
	if !ok {
		return "", fmt.Errorf("doc_to_target gave %v (%T), want a string here", tgt, tgt)
	}
	return s, nil
}

func endsWithSpace(s string) bool { return s != "" && py.IsSpace(lastRune(s)) }
