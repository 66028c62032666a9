package tasks

import (
	"fmt"
	"regexp"
	"strings"
)

// Built-in hooks for families of generated lm-eval task files whose
// process_docs keeps the documents of one MMLU subject, so that they run
// without Python. Each family's Python is one small function, used through
// functools.partial for every subject; the Go hook answers the names the
// family's task files use, and tasks/hooks_subjects_test.go checks it
// against the Python function on the same documents.
//
//   - global_mmlu/full/<lang>/utils.py process_<subject> (42 languages):
//     dataset.filter(lambda x: x["subject"] == subject)
//   - openai-mmmlu/default/utils.py process_<subject>: the same on the
//     Subject column, after _normalize_subject_name (which cuts a
//     "_test.csv…" or "_test-…" suffix some configs leave in it)

// hookPattern answers the hook names its regular expression matches.
type hookPattern struct {
	re   *regexp.Regexp
	make func(m []string) (registered, bool)
}

var builtinPatterns = []hookPattern{
	{regexp.MustCompile(`^global_mmlu\.full\.[a-z]+\.utils\.process_(\w+)$`), subjectHook("subject", nil)},
	{regexp.MustCompile(`^openai-mmmlu\.default\.utils\.process_(\w+)$`), subjectHook("Subject", mmmluSubject)},
}

// builtinHook is the built-in hook registered as name, or answering it.
func builtinHook(name string) (registered, bool) {
	if r, ok := builtinHooks[name]; ok {
		return r, true
	}
	for _, p := range builtinPatterns {
		if m := p.re.FindStringSubmatch(name); m != nil {
			if r, ok := p.make(m); ok {
				return r, true
			}
		}
	}
	return registered{}, false
}

// subjectHook makes the process_docs that keeps the documents whose field
// (normalised by norm, when set) is the subject the name ends with; names
// of other subjects are no hook (the Python module has no such function).
func subjectHook(field string, norm func(string) string) func(m []string) (registered, bool) {
	return func(m []string) (registered, bool) {
		subject := m[1]
		if !contains(MMLUSubjects(), subject) {
			return registered{}, false
		}
		return registered{fn: DocsHook(func(docs []Doc) ([]Doc, error) {
			out := []Doc{}
			for i, d := range docs {
				v, ok := d[field]
				if !ok {
					return nil, fmt.Errorf("document %d has no field %s (KeyError in lm-eval)", i, field)
				}
				s, isStr := v.(string)
				if isStr && norm != nil {
					s = norm(s)
				}
				if isStr && s == subject {
					out = append(out, d)
				}
			}
			return out, nil
		})}, true
	}
}

// mmmluSubject is openai-mmmlu's _normalize_subject_name.
func mmmluSubject(name string) string {
	for _, marker := range []string{"_test.csv", "_test-"} {
		if i := strings.Index(name, marker); i >= 0 {
			return name[:i]
		}
	}
	return name
}
