package tasks

import (
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/internal/pyworker"
	"github.com/goeval/goeval/metrics"
)

// The leaderboard hooks (hooks_leaderboard*.go) against the Python
// functions of lm-eval's task files (copied under parity/leaderboard/
// testdata/tasks; truthfulqa's from the .venv's lm-eval) on the same
// generated documents and responses.

const lbTasks = "../parity/leaderboard/testdata/tasks/leaderboard"

// lbPy calls file's attr(args...) in the worker: its value.
func lbPy(t *testing.T, rt *pyworker.Runtime, file, attr string, args ...any) any {
	t.Helper()
	f := &pyFunc{rt: rt, file: file, attr: attr, name: "utils." + attr}
	req := py.NewMap[any]()
	req.Set("args", args)
	v, err := f.call("call", req)
	if err != nil {
		t.Fatalf("%s: %v", attr, err)
	}
	return v.(*py.Map[any]).Value("value")
}

// lbRand is a small deterministic generator for the cases.
type lbRand struct{ r *py.Rand }

func (g lbRand) pick(xs []string) string { return xs[g.r.RandBelow(len(xs))] }

func (g lbRand) join(xs []string, n int) string {
	var b strings.Builder
	for range g.r.RandBelow(n) + 1 {
		b.WriteString(g.pick(xs))
	}
	return b.String()
}

var lbMarkup = []string{"", " [title]Head", " [note]", "  two  spaces", "\n padded \n", "a [x\ny] b", "x", "  "}

// TestLeaderboardGPQAMatchesPython: process_docs on the same documents
// from the same point of lm-eval's global random (seeded 0, then 48
// random_task_id draws, as under the leaderboard group), twice in a row.
func TestLeaderboardGPQAMatchesPython(t *testing.T) {
	rt := pyworker.New(datasetsPython(t), 0)
	defer rt.Close()
	g := lbRand{py.NewRand(7)}
	keys := []string{"Question", "Correct Answer", "Incorrect Answer 1", "Incorrect Answer 2", "Incorrect Answer 3", "Record ID"}
	tab := &table{Keys: map[string][]string{"": keys}}
	for i := range 300 {
		d := Doc{"Question": "Q" + g.join(lbMarkup, 3), "Record ID": fmt.Sprint(i)}
		for _, k := range keys[1:5] {
			d[k] = g.join(lbMarkup, 4)
		}
		if i%50 == 7 {
			d["Incorrect Answer 2"] = d["Correct Answer"] // list.index finds the first equal answer
		}
		tab.Rows = append(tab.Rows, d)
	}
	stream := newLMRandom()
	reg, ok := builtinHook("leaderboard.gpqa.utils.process_docs")
	if !ok {
		t.Fatal("no Go hook for leaderboard.gpqa.utils.process_docs")
	}
	f := &pyFunc{rt: rt, file: filepath.Join(lbTasks, "gpqa/utils.py"), attr: "process_docs", name: "utils.process_docs", key: "process_docs"}
	if err := f.resolve(hookDocs); err != nil {
		t.Fatal(err)
	}
	for round, ids := range []int{48, 48} {
		rnd, done := stream.at(ids)
		goRows, err := reg.fn.(randDocsHook)(tab.Rows, rnd)
		done()
		if err != nil {
			t.Fatal(err)
		}
		pt := &table{Rows: tab.Rows, Keys: map[string][]string{"": keys}}
		if err := pyProcessDocs(f, pt, lmRandomState{stream: stream, taskIDs: ids}); err != nil {
			t.Fatal(err)
		}
		wantKeys := append(append([]string{}, keys...), reg.added...)
		if !reflect.DeepEqual(pt.Keys[""], wantKeys) {
			t.Errorf("round %d: Python's columns %v, Go's %v", round, pt.Keys[""], wantKeys)
		}
		for i := range goRows {
			if !reflect.DeepEqual(goRows[i], pt.Rows[i]) {
				t.Fatalf("round %d doc %d: Go %v\nPython %v", round, i, goRows[i], pt.Rows[i])
			}
		}
	}
}

// TestLeaderboardDocHooksMatchPython: musr's and mmlu_pro's doc_to_text
// and doc_to_choice, and math's doc_to_text and few-shot samples.
func TestLeaderboardDocHooksMatchPython(t *testing.T) {
	rt := pyworker.New(datasetsPython(t), 0)
	defer rt.Close()
	g := lbRand{py.NewRand(11)}
	words := []string{"a", "b c", "O'Brien", "\"q\"", "é", "\n", "{x}", "1", " "}
	for i := range 200 {
		var choices []string
		for range g.r.RandBelow(5) + 1 {
			choices = append(choices, py.ReprString(g.join(words, 3)))
		}
		lit := "[" + strings.Join(choices, ", ") + "]"
		if i%9 == 0 {
			lit = "[1, 2.5, None, 'x']"
		}
		musr := Doc{"narrative": g.join(words, 6), "question": g.join(words, 3), "choices": lit}
		var opts []any
		for range g.r.RandBelow(10) + 1 {
			opts = append(opts, g.join(words, 3))
		}
		mmlu := Doc{"question": g.join(words, 5), "options": opts}
		mathDoc := Doc{"problem": g.join(words, 8)}
		for _, c := range []struct {
			name, file string
			doc        Doc
		}{
			{"leaderboard.musr.utils.doc_to_text", "musr/utils.py", musr},
			{"leaderboard.musr.utils.doc_to_choice", "musr/utils.py", musr},
			{"leaderboard.mmlu_pro.utils.doc_to_text", "mmlu_pro/utils.py", mmlu},
			{"leaderboard.mmlu_pro.utils.doc_to_choice", "mmlu_pro/utils.py", mmlu},
			{"leaderboard.math.utils.doc_to_text", "math/utils.py", mathDoc},
		} {
			reg, ok := builtinHook(c.name)
			if !ok {
				t.Fatalf("no Go hook %s", c.name)
			}
			got, err := reg.fn.(DocHook)(c.doc)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			attr := c.name[strings.LastIndex(c.name, ".")+1:]
			want := lbPy(t, rt, filepath.Join(lbTasks, c.file), attr, OrderedDoc(c.doc, nil))
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s on %v: Go %#v, Python %#v", c.name, c.doc, got, want)
			}
		}
	}
	reg, _ := builtinHook("leaderboard.math.utils.list_fewshot_samples")
	got, err := reg.fn.(SamplesHook)()
	if err != nil {
		t.Fatal(err)
	}
	want := lbPy(t, rt, filepath.Join(lbTasks, "math/utils.py"), "list_fewshot_samples")
	if !reflect.DeepEqual(OrderedDoc(anyDocs(got), nil), OrderedDoc(docFromPy(want, "", map[string][]string{}), nil)) {
		t.Errorf("list_fewshot_samples: Go %v\nPython %v", got, want)
	}
}

func lbInt(v metrics.Value) int64 {
	f, _ := v.Float()
	return int64(f)
}

func anyDocs(ds []Doc) []any {
	out := make([]any, len(ds))
	for i, d := range ds {
		out[i] = d
	}
	return out
}

var lbMathPieces = []string{"$", "\\boxed{", "\\boxed ", "\\fbox{", "}", "{", "\\frac", "\\dfrac", "12", "3", "0", ",",
	"=", " ", "\\text{", "cm", "units", "\\sqrt", "x", "^\\circ", "an ", "a ", "\\!", "100,000", "²", ".", "\\$",
	"mbox", "\\text{and}", "\\left(", "\\right)", "ft", "-", "\n", "\\textbf{", "\\overline{", "\\;", "{,}", "\"",
	"\\dots", "^{\\circ}", "ways", "Final Answer: The final answer is ", ". I hope it is correct.", "[2,5)", "π"}

// TestLeaderboardMathMatchesPython: the answer pieces of leaderboard/math
// on thousands of generated strings — normalize_final_answer,
// get_unnormalized_answer, last_boxed_only_string and remove_boxed — and
// process_docs and process_results on generated documents and answers:
// exact_match and exact_match_original (sympy's is_equiv against
// mathverify.IsEquiv) identical; a differing exact_match_original is asked
// of Python again, as is_equiv's 1 s timeout can fire on a loaded machine.
func TestLeaderboardMathMatchesPython(t *testing.T) {
	rt := pyworker.New(datasetsPython(t), 0)
	defer rt.Close()
	file := filepath.Join(lbTasks, "math/utils.py")
	g := lbRand{py.NewRand(3)}
	for i := range 3000 {
		s := g.join(lbMathPieces, 12)
		if w := lbPy(t, rt, file, "normalize_final_answer", s); w != lbNormalize(s) {
			t.Fatalf("case %d normalize_final_answer(%q): Python %q, Go %q", i, s, w, lbNormalize(s))
		}
		if w := lbPy(t, rt, file, "get_unnormalized_answer", s); w != minervaUnnormalized(s) {
			t.Fatalf("case %d get_unnormalized_answer(%q): Python %q, Go %q", i, s, w, minervaUnnormalized(s))
		}
		if w := lbPy(t, rt, file, "last_boxed_only_string", s); w != lbLastBoxed(s) {
			t.Fatalf("case %d last_boxed_only_string(%q): Python %q, Go %q", i, s, w, lbLastBoxed(s))
		}
		b := lbLastBoxed(s)
		if w := lbPy(t, rt, file, "remove_boxed", b); w != lbRemoveBoxed(b) {
			t.Fatalf("case %d remove_boxed(%q): Python %q, Go %q", i, b, w, lbRemoveBoxed(b))
		}
	}
	answers := []string{"42", "\\frac{3}{4}", "0.75", "3/4", "-7", "x^2+1", "1+x^2", "[2,5)", "\\sqrt{2}", "100,000",
		"100000", "\\text{(A)}", "5\\text{ cm}", "\\pi", "2\\pi", "\\infty"}
	docs, orig := 0, 0
	for i := range 400 {
		gold := g.pick(answers)
		level := []string{"Level 5", "Level 3", "Level 5"}[i%3]
		sol := "So $x = \\boxed{" + gold + "}$."
		if i%7 == 0 {
			sol = "no box " + gold
		}
		d := Doc{"problem": "P", "level": level, "type": "Algebra", "solution": sol}
		pt := &table{Rows: []Doc{d}, Keys: map[string][]string{"": {"problem", "level", "type", "solution"}}}
		goRows, err := lbMathProcessDocs(pt.Rows)
		if err != nil {
			t.Fatal(err)
		}
		f := &pyFunc{rt: rt, file: file, attr: "process_docs", name: "utils.process_docs", key: "process_docs"}
		if err := pyProcessDocs(f, pt, lmRandomState{}); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(goRows, pt.Rows) {
			t.Fatalf("process_docs(%v): Go %v, Python %v", d, goRows, pt.Rows)
		}
		if len(goRows) == 0 {
			continue
		}
		docs++
		gen := g.join(lbMathPieces, 6) + " Final Answer: The final answer is $" + g.pick(answers) + "$. I hope it is correct."
		got, err := lbMathResults(goRows[0], []Response{{Text: gen}})
		if err != nil {
			t.Fatal(err)
		}
		want := lbPy(t, rt, file, "process_results", OrderedDoc(goRows[0], pt.Keys), []any{gen}).(*py.Map[any])
		if w := want.Value("exact_match"); w != lbInt(got["exact_match"]) {
			t.Fatalf("process_results exact_match on %q vs gold %q: Python %v, Go %v", gen, gold, w, got["exact_match"])
		}
		w := want.Value("exact_match_original")
		for retry := 0; retry < 2 && w != lbInt(got["exact_match_original"]); retry++ {
			// is_equiv's 1 s alarm may fire on a loaded machine: ask again
			want = lbPy(t, rt, file, "process_results", OrderedDoc(goRows[0], pt.Keys), []any{gen}).(*py.Map[any])
			w = want.Value("exact_match_original")
		}
		orig += int(w.(int64))
		if w != lbInt(got["exact_match_original"]) {
			t.Fatalf("process_results exact_match_original on %q vs gold %q: Python %v, Go %v", gen, gold, w, got["exact_match_original"])
		}
	}
	t.Logf("process_results on %d documents: exact_match and exact_match_original identical (%d of them 1)", docs, orig)
}

// TestTruthfulQAMC2MatchesPython: process_results_mc2 on generated
// log-likelihoods, within 4 ulps: numpy's exp is its own SIMD code on
// AVX-512 machines (it differs from the correctly rounded exp in about 4%
// of these inputs, by an ulp) and libm's elsewhere, so lm-eval itself is
// bit for bit only per machine; the sums are numpy's pairwise ones.
func TestTruthfulQAMC2MatchesPython(t *testing.T) {
	p := datasetsPython(t)
	out, err := exec.Command(p, "-c", "import lm_eval, os; print(os.path.dirname(lm_eval.__file__))").Output()
	if err != nil {
		t.Skip("no lm_eval")
	}
	file := filepath.Join(strings.TrimSpace(string(out)), "tasks/truthfulqa/utils.py")
	rt := pyworker.New(p, 0)
	defer rt.Close()
	g := lbRand{py.NewRand(5)}
	reg, _ := builtinHook("truthfulqa.utils.process_results_mc2")
	for i := range 1000 {
		n := g.r.RandBelow(14) + 1
		labels, results := make([]any, n), make([]any, n)
		resps := make([]Response, n)
		for j := range n {
			labels[j] = int64(g.r.RandBelow(2))
			resps[j] = Response{LogProb: -g.r.Random() * math.Pow(10, float64(g.r.RandBelow(4)))}
			results[j] = pyworker.Tuple{resps[j].LogProb, false}
		}
		d := Doc{"question": "q", "mc2_targets": map[string]any{"choices": make([]any, n), "labels": labels}}
		got, err := reg.fn.(ResultsHook)(d, resps)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := pyNumber(lbPy(t, rt, file, "process_results_mc2", OrderedDoc(d, nil), results).(*py.Map[any]).Value("acc"))
		if g, _ := got["acc"].Float(); math.Abs(g-want) > 4*ulp(want) && !(math.IsNaN(g) && math.IsNaN(want)) {
			t.Fatalf("case %d: Go %v, Python %v (log-likelihoods %v, labels %v)", i, g, want, results, labels)
		}
	}
}

// ulp is the spacing of float64 values at x.
func ulp(x float64) float64 {
	x = math.Abs(x)
	return math.Nextafter(x, math.Inf(1)) - x
}
