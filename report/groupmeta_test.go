package report

import (
	"testing"

	"github.com/goeval/goeval"
	"github.com/goeval/goeval/internal/py"
)

// TestGroupMetaLikeLMEval checks lm-eval's group bookkeeping: group_subtasks
// parent first; n-shot and higher_is_better propagated in that order in
// one pass, so a group of groups (mmlu) gets neither; a metric whose
// direction the children disagree on is null.
func TestGroupMetaLikeLMEval(t *testing.T) {
	groups := []*goeval.GroupResult{ // the evaluator's order: children first
		{Name: "hendrycks_math", Subtasks: []string{"h1"}},
		{Name: "mmlu_stem", Subtasks: []string{"t1", "t2"}},
		{Name: "mmlu_other", Subtasks: []string{"t3"}},
		{Name: "mmlu", Subtasks: []string{"mmlu_stem", "mmlu_other"}},
	}
	var order []string
	for _, g := range groupPreorder(groups) {
		order = append(order, g.Name)
	}
	if want := "[hendrycks_math mmlu mmlu_stem mmlu_other]"; fmtList(order) != want {
		t.Errorf("group order %v, want %s", order, want)
	}
	hib := func(kv ...any) *py.Map[any] {
		m := py.NewMap[any]()
		for i := 0; i < len(kv); i += 2 {
			m.Set(kv[i].(string), kv[i+1])
		}
		return m
	}
	m := &taskMeta{shots: map[string]any{"h1": 4, "t1": 5, "t2": 5, "t3": 5},
		hib: map[string]any{"h1": hib("exact_match", true), "t1": hib("acc", true), "t2": hib("acc", false, "f1", true),
			"t3": hib("acc", true)}}
	propagateGroupMeta(groupPreorder(groups), m)
	if _, ok := m.shots["mmlu"]; ok {
		t.Error("mmlu got an n-shot; lm-eval writes none for a group of groups")
	}
	if _, ok := m.hib["mmlu"]; ok {
		t.Error("mmlu got higher_is_better; lm-eval writes none for a group of groups")
	}
	if m.shots["mmlu_stem"] != 5 || m.shots["hendrycks_math"] != 4 {
		t.Errorf("n-shot %v", m.shots)
	}
	stem := m.hib["mmlu_stem"].(*py.Map[any])
	if a, _ := stem.Get("acc"); a != nil || fmtList(stem.Keys()) != "[acc f1]" {
		t.Errorf("mmlu_stem higher_is_better %v acc=%v, want acc null (children disagree), then f1", stem.Keys(), a)
	}
}

func fmtList(s []string) string {
	out := "["
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}
