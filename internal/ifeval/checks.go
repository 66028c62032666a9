package ifeval

import (
	"regexp"
	"strings"

	"github.com/goeval/goeval/internal/py"
)

// The instructions of instructions_registry.INSTRUCTION_DICT that Go
// answers, each as instructions.py's build_description (reading the
// arguments) and check_following (the returned checker).

var builders = map[string]func(a *args) checker{
	"keywords:existence":                            keywordExistence,
	"keywords:frequency":                            keywordFrequency,
	"keywords:forbidden_words":                      forbiddenWords,
	"keywords:letter_frequency":                     letterFrequency,
	"length_constraints:number_paragraphs":          numberParagraphs,
	"length_constraints:number_words":               numberWords,
	"length_constraints:nth_paragraph_first_word":   nthParagraphFirstWord,
	"detectable_content:number_placeholders":        numberPlaceholders,
	"detectable_content:postscript":                 postscript,
	"detectable_format:number_bullet_lists":         bulletLists,
	"detectable_format:constrained_response":        constrainedResponse,
	"detectable_format:number_highlighted_sections": highlightedSections,
	"detectable_format:multiple_sections":           multipleSections,
	"detectable_format:json_format":                 func(*args) checker { return jsonFormat },
	"detectable_format:title":                       func(*args) checker { return title },
	"combination:two_responses":                     func(*args) checker { return twoResponses },
	"combination:repeat_prompt":                     repeatPrompt,
	"startend:end_checker":                          endChecker,
	"startend:quotation":                            func(*args) checker { return quotation },
	"punctuation:no_comma":                          func(*args) checker { return noComma },
}

// pattern compiles a Python pattern built from an argument, recording the
// error in a.
func (a *args) pattern(p string, ignoreCase, multiline bool) *regexp.Regexp {
	re, err := compile(p, ignoreCase, multiline)
	if err != nil {
		a.failf("%v", err)
	}
	return re
}

func constant(b bool) checker { return func(string) (bool, error) { return b, nil } }

func keywordExistence(a *args) checker {
	var res []*regexp.Regexp
	for _, k := range a.strs("keywords") {
		res = append(res, a.pattern(k, true, false))
	}
	return func(v string) (bool, error) {
		v = foldText(v)
		for _, re := range res {
			if !re.MatchString(v) {
				return false, nil
			}
		}
		return true, nil
	}
}

func keywordFrequency(a *args) checker {
	re := a.pattern(a.str("keyword", true), true, false)
	n, less := a.num("frequency"), a.relation("relation")
	return func(v string) (bool, error) {
		return compare(less, len(re.FindAllStringIndex(foldText(v), -1)), n), nil
	}
}

func forbiddenWords(a *args) checker {
	words := a.strs("forbidden_words")
	var res []*regexp.Regexp
	for _, w := range words {
		res = append(res, a.pattern(w, true, false))
	}
	return func(v string) (bool, error) {
		v = foldText(v)
		for _, re := range res {
			if searchWord(re, v) {
				return false, nil
			}
		}
		return true, nil
	}
}

func letterFrequency(a *args) checker {
	l, ok := a.kw["letter"].(string)
	lo := py.Lower(l)
	if !ok || len([]rune(l)) > 1 || len([]rune(lo)) != 1 || lo[0] < 'a' || lo[0] > 'z' {
		a.random("letter")
	}
	n, less := a.num("let_frequency"), a.relation("let_relation")
	return func(v string) (bool, error) {
		return compare(less, strings.Count(py.Lower(v), lo), n), nil
	}
}

func numberWords(a *args) checker {
	n, less := a.num("num_words"), a.relation("relation")
	return func(v string) (bool, error) { return compare(less, countWords(v), n), nil }
}

func numberPlaceholders(a *args) checker {
	n := a.num("num_placeholders")
	re := regexp.MustCompile(`\[.*?\]`)
	return func(v string) (bool, error) { return len(re.FindAllStringIndex(v, -1)) >= n, nil }
}

func bulletLists(a *args) checker {
	n := a.num("num_bullets")
	star := mustCompile(`^\s*\*[^\*].*$`, false, true)
	dash := mustCompile(`^\s*-.*$`, false, true)
	return func(v string) (bool, error) {
		return len(star.FindAllStringIndex(v, -1))+len(dash.FindAllStringIndex(v, -1)) == n, nil
	}
}

var constrainedOptions = []string{"My answer is yes.", "My answer is no.", "My answer is maybe."}

func constrainedResponse(*args) checker {
	return func(v string) (bool, error) {
		v = py.Strip(v)
		for _, o := range constrainedOptions {
			if strings.Contains(v, o) {
				return true, nil
			}
		}
		return false, nil
	}
}

func mustCompile(p string, ignoreCase, multiline bool) *regexp.Regexp {
	re, err := compile(p, ignoreCase, multiline)
	if err != nil {
		panic(err)
	}
	return re
}
