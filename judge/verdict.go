package judge

import (
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/goeval/goeval/internal/errs"
)

// The default judge prompts (in the style of MT-Bench's): the verdict is
// asked for in a fixed form, [[A]] / [[B]] / [[C]] or [[N]], that
// ParsePairwise and ParseScore read.
const (
	DefaultSystem = "You are a careful, impartial judge of AI assistants' answers."

	DefaultPairwise = `Compare the two assistants' answers to the user question below. Judge helpfulness, correctness, depth and clarity; ignore the answers' order and length, and the assistants' names. Explain your judgement briefly, then give your verdict on the last line, exactly as "[[A]]" if assistant A is better, "[[B]]" if assistant B is better, or "[[C]]" for a tie.

[User question]
{question}

[Assistant A's answer]
{answer_a}

[Assistant B's answer]
{answer_b}`

	DefaultSingle = `Rate the assistant's answer to the user question below for helpfulness, correctness, depth and clarity. Explain your rating briefly, then give it on the last line, exactly as "Rating: [[N]]" with N an integer from 0 to 10.

[User question]
{question}

[Assistant's answer]
{answer}`
)

// Template is a judge prompt with its placeholders.
type Template struct {
	System, User string
}

// LoadTemplate reads a user prompt template from path ("" = the default for
// mode) and checks it has mode's placeholders.
func LoadTemplate(path, mode string) (Template, error) {
	t := Template{System: DefaultSystem, User: DefaultPairwise}
	need := []string{"{question}", "{answer_a}", "{answer_b}"}
	if mode == "single" {
		t.User, need = DefaultSingle, []string{"{question}", "{answer}"}
	}
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return t, errs.BadInputf("--judge-prompt: %v", err)
		}
		t.User = string(b)
	}
	for _, p := range need {
		if !strings.Contains(t.User, p) {
			return t, errs.BadInputf("judge prompt %s lacks the placeholder %s (a %s prompt needs %s)", orDefault(path), p, mode, strings.Join(need, ", "))
		}
	}
	return t, nil
}

func orDefault(path string) string {
	if path == "" {
		return "(default)"
	}
	return path
}

// Fill replaces the placeholders.
func (t Template) Fill(question, a, b string) string {
	return strings.NewReplacer("{question}", question, "{answer_a}", a, "{answer_b}", b, "{answer}", a).Replace(t.User)
}

var (
	pairRe  = regexp.MustCompile(`\[\[\s*([ABC])\s*\]\]`)
	scoreRe = regexp.MustCompile(`\[\[\s*(\d+(?:\.\d+)?)\s*\]\]`)
)

// ParsePairwise reads the last [[A]], [[B]] or [[C]] in a judgement: "A",
// "B", "tie", or "" when there is none.
func ParsePairwise(text string) string {
	m := pairRe.FindAllStringSubmatch(text, -1)
	if len(m) == 0 {
		return ""
	}
	switch v := m[len(m)-1][1]; v {
	case "C":
		return "tie"
	default:
		return v
	}
}

// ParseScore reads the last [[N]] with 0 ≤ N ≤ 10.
func ParseScore(text string) (float64, bool) {
	m := scoreRe.FindAllStringSubmatch(text, -1)
	if len(m) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[len(m)-1][1], 64)
	if err != nil || v < 0 || v > 10 {
		return 0, false
	}
	return v, true
}
