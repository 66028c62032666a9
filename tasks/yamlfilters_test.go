package tasks

import (
	"reflect"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/py"
)

// TestSelectionFilters: majority_vote, take_first_k and take_first over a
// document's answers give what lm-eval 0.4.13's filters give on the same
// lists (MajorityVoteFilter: a tie goes to the answer seen first, as
// Counter.most_common(1) picks it; TakeKFilter).
func TestSelectionFilters(t *testing.T) {
	vote := [][2][]string{ // lm-eval: MajorityVoteFilter().apply(...)
		{{"a", "b", "b", "a"}, {"a"}},
		{{"x"}, {"x"}},
		{{"b", "a", "c", "a", "b"}, {"b"}},
		{{"", "", "z"}, {""}},
		{{"q", "r", "s"}, {"q"}},
	}
	for _, c := range vote {
		got, err := majorityVote(respList{resps: c[0]}, nil)
		if err != nil || got.taken || !reflect.DeepEqual(got.resps, c[1]) {
			t.Errorf("majority_vote %q = %+v (%v), lm-eval %q", c[0], got, err, c[1])
		}
	}
	first2 := [][2][]string{{{"a", "b", "b", "a"}, {"a", "b"}}, {{"", "", "z"}, {"", ""}}}
	for _, c := range first2 {
		got, err := takeFirstK(2)(respList{resps: c[0]}, nil)
		if err != nil || !reflect.DeepEqual(got.resps, c[1]) {
			t.Errorf("take_first_k 2 %q = %+v (%v), lm-eval %q", c[0], got, err, c[1])
		}
	}
	if _, err := takeFirstK(3)(respList{resps: []string{"a", "b"}}, nil); err == nil || !strings.Contains(err.Error(), "increase the task's repeats") {
		t.Errorf("take_first_k 3 of 2 answers: error %v, want lm-eval's assertion", err)
	}
	if got, _ := takeFirst(respList{resps: []string{"a", "b"}}, nil); got.filtered() != "a" {
		t.Errorf("take_first: %v, want \"a\"", got.filtered())
	}
	if _, err := majorityVote(respList{resps: []string{"a"}, taken: true}, nil); err == nil {
		t.Error("majority_vote after take_first: no error")
	}
}

// TestFilterPipelineRepeats builds filter_list pipelines from YAML as a
// task file gives them and runs them over 3 answers: the element-wise
// regex keeps the list (as lm-eval's RegexFilter over each response), and
// the result is a string only after take_first.
func TestFilterPipelineRepeats(t *testing.T) {
	step := func(kv ...any) *py.Map[any] {
		m := py.NewMap[any]()
		for i := 0; i < len(kv); i += 2 {
			m.Set(kv[i].(string), kv[i+1])
		}
		return m
	}
	re := step("function", "regex", "regex_pattern", "([aeiou])")
	for _, c := range []struct {
		steps []*py.Map[any]
		want  any
	}{
		{[]*py.Map[any]{re}, []any{"a", "[invalid]", "u"}}, // lm-eval: [['a', '[invalid]', 'u']]
		{[]*py.Map[any]{re, step("function", "majority_vote")}, []any{"a"}},
		{[]*py.Map[any]{re, step("function", "majority_vote"), step("function", "take_first")}, "a"},
		{[]*py.Map[any]{step("function", "take_first_k", "k", 2), re, step("function", "take_first")}, "a"},
		{[]*py.Map[any]{step("function", "take_first"), step("function", "uppercase")}, "XA1"},
	} {
		r := &cfgReader{c: yamlConfig{m: py.NewMap[any](), path: "t.yaml"}}
		p := filterPipe{name: "p"}
		for i, m := range c.steps {
			p.steps = append(p.steps, r.pipeStep("filter_list[0].filter["+string(rune('0'+i))+"]", m))
		}
		if r.err != nil {
			t.Fatal(r.err)
		}
		l, err := p.apply([]string{"xa1", "bbb", "ue"}, nil)
		if got := l.filtered(); err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%d steps: %#v (%v), want %#v", len(c.steps), got, err, c.want)
		}
	}
}
