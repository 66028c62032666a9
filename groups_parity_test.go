package goeval_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/goeval/goeval"
	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/report"
	"github.com/goeval/goeval/tasks"
)

// The groups of testdata/lmeval_groups evaluated by goeval with the answers
// lm-eval's stand-in model gave (parity/lmeval/group_golden.py): every key
// of lm-eval's results file that groups reach (results, groups,
// group_subtasks, versions, n-shot, higher_is_better, n-samples) must be
// byte for byte lm-eval's, key order and float spelling included.

const groupsDir = "testdata/lmeval_groups"

// groupReplayLM answers from lm-eval's recorded answers; an unknown request is
// an error (goeval asked for something lm-eval did not).
type groupReplayLM struct{ answers map[string]any }

func (r groupReplayLM) Loglikelihood(_ context.Context, reqs []lm.LoglikelihoodRequest) ([]lm.LoglikelihoodResult, error) {
	out := make([]lm.LoglikelihoodResult, len(reqs))
	for i, q := range reqs {
		a, ok := r.answers["ll\x00"+q.Context+"\x00"+q.Continuation].([]any)
		if !ok {
			return nil, fmt.Errorf("no recorded answer for %q / %q", q.Context, q.Continuation)
		}
		ll, _ := a[0].(json.Number).Float64()
		out[i] = lm.LoglikelihoodResult{LogProb: ll, IsGreedy: a[1].(bool)}
	}
	return out, nil
}

func (r groupReplayLM) LoglikelihoodRolling(context.Context, []lm.RollingRequest) ([]lm.RollingResult, error) {
	return nil, fmt.Errorf("no rolling requests here")
}

func (r groupReplayLM) GenerateUntil(_ context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	out := make([]lm.GenerateResult, len(reqs))
	for i, q := range reqs {
		a, ok := r.answers["gen\x00"+q.Context].(string)
		if !ok {
			return nil, fmt.Errorf("no recorded answer for %q", q.Context)
		}
		out[i] = lm.GenerateResult{Text: a}
	}
	return out, nil
}

func readPyMap(t *testing.T, path string) *py.Map[any] {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := py.ParseJSON(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v.(*py.Map[any])
}

func TestGroupsMatchLMEval(t *testing.T) {
	answers := readPyMap(t, filepath.Join(groupsDir, "answers.json"))
	model := groupReplayLM{answers: map[string]any{}}
	for _, k := range answers.Keys() {
		model.answers[k] = answers.Value(k)
	}
	cases := map[string][]string{"filters": {"g_filters"}, "discover": {"g_discover", "mc_b"},
		"outer": {"g_outer"}, "over": {"g_over"}, "escape": {"esc_gen"}}
	for name, names := range cases {
		t.Run(name, func(t *testing.T) {
			ix := tasks.NewIndex()
			if _, _, err := ix.IncludePath(filepath.Join(groupsDir, "tasks")); err != nil {
				t.Fatal(err)
			}
			res, err := goeval.Evaluate(context.Background(), model, goeval.Options{Tasks: names, Index: ix,
				Task: tasks.DefaultOptions(), BootstrapIters: 1000})
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := report.FromResults(res, report.RunInfo{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := out.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			gv, err := py.ParseJSON(b)
			if err != nil {
				t.Fatal(err)
			}
			got := gv.(*py.Map[any])
			want := readPyMap(t, filepath.Join(groupsDir, "results", name+".json"))
			for _, k := range want.Keys() {
				w, _ := py.JSON(want.Value(k), true)
				g, _ := py.JSON(got.Value(k), true)
				if string(w) != string(g) {
					t.Errorf("%s differs from lm-eval's:\nlm-eval %s\ngoeval  %s", k, w, g)
				}
			}
			_, gotHas := got.Get("groups")
			_, wantHas := want.Get("groups")
			if gotHas != wantHas {
				t.Errorf("groups: goeval writes it %v, lm-eval %v", gotHas, wantHas)
			}
		})
	}
}

// TestGroupsIndexMatchesLMEval: every name lm-eval's TaskIndex finds in
// testdata/lmeval_groups/tasks is a task or group of the same kind in
// goeval's Index (a class: file with group: and task: is a task; a file
// with `\/` escapes is read).
func TestGroupsIndexMatchesLMEval(t *testing.T) {
	ix := tasks.NewIndex()
	if _, _, err := ix.IncludePath(filepath.Join(groupsDir, "tasks")); err != nil {
		t.Fatal(err)
	}
	groups := map[string]bool{}
	for _, g := range ix.Groups() {
		groups[g.Name] = true
	}
	taskNames := map[string]bool{}
	for _, n := range ix.List() {
		taskNames[n] = true
	}
	want := readPyMap(t, filepath.Join(groupsDir, "index.json"))
	for _, n := range want.Keys() {
		switch kind := want.Value(n); kind {
		case "GROUP":
			if !groups[n] || taskNames[n] {
				t.Errorf("%s: lm-eval indexes a group; goeval group %v, task %v", n, groups[n], taskNames[n])
			}
		default:
			if !taskNames[n] || groups[n] {
				t.Errorf("%s: lm-eval indexes a %s; goeval task %v, group %v", n, kind, taskNames[n], groups[n])
			}
		}
	}
	if groups["g_cls"] {
		t.Errorf("goeval indexes g_cls as a group; lm-eval reads its file as the task cls_task")
	}
}
