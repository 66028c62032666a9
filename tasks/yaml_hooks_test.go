package tasks_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/goeval/goeval/tasks"
)

// TestBuiltinHooksYAML loads lm-eval's own YAML files of tasks goeval builds
// in (hellaswag, winogrande, wikitext, drop, hendrycks_math_algebra), whose
// !function hooks resolve to goeval's Go functions, and requires the tasks
// they define to build exactly the built-ins' lm-eval goldens and to score
// like the built-ins.
func TestBuiltinHooksYAML(t *testing.T) {
	dir := synthData(t)
	builtins := map[string]tasks.Task{}
	for _, n := range []string{"hellaswag", "winogrande", "wikitext", "drop", "hendrycks_math_algebra"} {
		b, err := tasks.NewIndex().Get(n)
		if err != nil {
			t.Fatal(err)
		}
		builtins[n] = b
	}
	ix := tasks.NewIndex()
	names, notes, err := ix.IncludePath("testdata/lmeval_builtin_yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 6 { // five tasks and the hendrycks_math group
		t.Fatalf("indexed %v", names)
	}
	for name, b := range builtins {
		t.Run(name, func(t *testing.T) {
			y, err := ix.Get(name)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(notes, func(n string) bool {
				return strings.Contains(n, ": "+name+" replaces goeval's built-in task")
			}) {
				t.Fatalf("the YAML %s does not replace the built-in (notes %q)", name, notes)
			}
			_, want := readGolden(t, filepath.Join("testdata", "lmeval", name+".jsonl"))
			opts := tasks.DefaultOptions()
			opts.DataDir = dir
			insts := buildMatches(t, y, opts, want)
			bi, err := b.Build(opts)
			if err != nil {
				t.Fatal(err)
			}
			for i := range insts {
				resps := fakeResponses(insts[i], i)
				gy, err := y.Process(&insts[i], resps)
				if err != nil {
					t.Fatal(err)
				}
				gb, err := b.Process(&bi[i], resps)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(gy, gb) {
					t.Fatalf("doc %d scores differ:\nYAML     %v\nbuilt-in %v", i, gy, gb)
				}
			}
		})
	}
}

// fakeResponses are deterministic responses of the right kind for inst.
func fakeResponses(inst tasks.Instance, seed int) []tasks.Response {
	out := make([]tasks.Response, len(inst.Requests))
	for j, r := range inst.Requests {
		out[j] = tasks.Response{LogProb: -float64((seed*7+j*3)%11) - 0.5, IsGreedy: (seed+j)%3 == 0}
		if r.Kind == tasks.ReqGenerate {
			out[j].Text = fmt.Sprintf(" %d. The answer is %d", seed%4, seed%3)
		}
	}
	return out
}
