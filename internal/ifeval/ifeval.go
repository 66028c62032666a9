// Package ifeval is lm-eval's ifeval instruction checks (tasks/ifeval of
// lm-eval 0.4.13: instructions.py, instructions_util.py, utils.py) in Go,
// with Python's semantics kept where Go's differ: Unicode \s, \w and \d in
// patterns, str.split, str.strip and str.lower (pystr.go, pyre.go), and
// json.loads (pyjson.go).
//
// The checks that depend on trained models — langdetect's language
// profiles (response_language, english_capital, english_lowercase) and
// nltk's punkt sentence tokenizer (number_sentences,
// capital_word_frequency) — are not ported: Check answers ErrNeedsPython
// for them, and the caller runs lm-eval's Python for that document.
package ifeval

import (
	"errors"
	"fmt"

	"github.com/goeval/goeval/internal/py"
)

// ErrNeedsPython is returned for the instructions whose checks depend on
// Python's trained models (langdetect, nltk's punkt).
var ErrNeedsPython = errors.New("needs Python (a trained model of langdetect or nltk)")

// Kwargs are an instruction's keyword arguments as the dataset holds them
// (JSON numbers as float64 or int, strings, lists of strings, nil).
type Kwargs map[string]any

// checker checks one response against one built instruction.
type checker func(value string) (bool, error)

// pythonOnly are the instructions Check does not answer.
var pythonOnly = map[string]bool{
	"language:response_language":          true,
	"change_case:english_capital":         true,
	"change_case:english_lowercase":       true,
	"length_constraints:number_sentences": true,
	"change_case:capital_word_frequency":  true,
}

// NeedsPython reports whether the instruction id is one Check leaves to
// Python.
func NeedsPython(id string) bool { return pythonOnly[id] }

// build makes the checker for instruction id with kwargs; prompt is the
// document's prompt. It fails where lm-eval would draw an argument at
// random (a missing or falsy one) or raise.
func build(id string, kw Kwargs, prompt string) (checker, error) {
	if pythonOnly[id] {
		return nil, fmt.Errorf("ifeval: instruction %s %w", id, ErrNeedsPython)
	}
	mk, ok := builders[id]
	if !ok {
		return nil, fmt.Errorf("ifeval: unknown instruction %q (KeyError in lm-eval)", id)
	}
	a := args{kw: truthy(kw), id: id}
	c := mk(&a)
	if a.err != nil {
		return nil, a.err
	}
	return c, nil
}

// truthy drops the falsy values, as utils.py does before build_description.
func truthy(kw Kwargs) Kwargs {
	out := Kwargs{}
	for k, v := range kw {
		switch x := v.(type) {
		case nil:
			continue
		case string:
			if x == "" {
				continue
			}
		case float64:
			if x == 0 {
				continue
			}
		case int:
			if x == 0 {
				continue
			}
		case bool:
			if !x {
				continue
			}
		case []any:
			if len(x) == 0 {
				continue
			}
		case []string:
			if len(x) == 0 {
				continue
			}
		}
		out[k] = v
	}
	return out
}

// Result is one document's verdicts: per instruction, strict and loose.
type Result struct {
	Strict, Loose []bool
}

// PromptStrict is prompt_level_strict_acc: every instruction followed.
func (r Result) PromptStrict() bool { return all(r.Strict) }

// PromptLoose is prompt_level_loose_acc.
func (r Result) PromptLoose() bool { return all(r.Loose) }

func all(bs []bool) bool {
	for _, b := range bs {
		if !b {
			return false
		}
	}
	return true
}

// Evaluate is utils.py's test_instruction_following_strict and _loose for
// one document: ids and kwargs are its instruction_id_list and kwargs.
func Evaluate(ids []string, kwargs []Kwargs, prompt, response string) (Result, error) {
	if len(kwargs) < len(ids) {
		return Result{}, fmt.Errorf("ifeval: %d instructions but %d kwargs (IndexError in lm-eval)", len(ids), len(kwargs))
	}
	variants := looseVariants(response)
	var res Result
	for i, id := range ids {
		c, err := build(id, kwargs[i], prompt)
		if err != nil {
			return Result{}, err
		}
		s, err := follows(c, response)
		if err != nil {
			return Result{}, err
		}
		l := false
		for _, v := range variants {
			if l, err = follows(c, v); err != nil {
				return Result{}, err
			} else if l {
				break
			}
		}
		res.Strict, res.Loose = append(res.Strict, s), append(res.Loose, l)
	}
	return res, nil
}

// follows is `response.py.Strip() and instruction.check_following(response)`.
func follows(c checker, r string) (bool, error) {
	if py.Strip(r) == "" {
		return false, nil
	}
	return c(r)
}

// Check is one instruction's strict and loose verdicts on a response.
func Check(id string, kw Kwargs, prompt, response string) (strict, loose bool, err error) {
	r, err := Evaluate([]string{id}, []Kwargs{kw}, prompt, response)
	if err != nil {
		return false, false, err
	}
	return r.Strict[0], r.Loose[0], nil
}
