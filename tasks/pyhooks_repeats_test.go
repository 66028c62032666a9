package tasks_test

import (
	"reflect"
	"testing"

	"github.com/goeval/goeval/tasks"
)

// TestPythonFiltersRepeats: with repeats, Python filters get a document's
// list of answers (every repeat, after take_first_k's cut) and, after
// take_first, its one response — as lm-eval hands them over — between
// goeval's own selection filters; exact_match scores a list as the share
// of its answers that match.
func TestPythonFiltersRepeats(t *testing.T) {
	ix := plainPython(t)
	tk, err := ix.Get("plain_gen_repeats")
	if err != nil {
		t.Fatal(err)
	}
	insts, err := tk.Build(tasks.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if r := insts[0].Requests[0].Repeats; r != 3 {
		t.Fatalf("request repeats %d, want 3", r)
	}
	resp := tasks.Response{Text: " rome", Repeats: []tasks.Response{{Text: " rome"}, {Text: "Paris "}, {Text: " Paris"}}}
	res, err := tk.Process(&insts[0], []tasks.Response{resp})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]struct {
		filtered any
		em       float64
	}{
		"vote":      {"Paris!", 0},
		"first_two": {[]any{" ROME", "PARIS "}, 0},
		"stripped":  {[]any{"rome", "Paris", "Paris"}, 2.0 / 3},
		"upper_all": {[]any{" ROME", "PARIS ", " PARIS"}, 0},
	} {
		r := res[name]
		if !reflect.DeepEqual(r.FilteredResps, want.filtered) {
			t.Errorf("%s: filtered %#v, want %#v", name, r.FilteredResps, want.filtered)
		}
		if v, _ := r.Metrics["exact_match"].Float(); v != want.em {
			t.Errorf("%s: exact_match %v, want %v", name, v, want.em)
		}
	}
}
