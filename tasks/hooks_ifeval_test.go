package tasks

import (
	"compress/gzip"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/ifeval"
	"github.com/goeval/goeval/internal/pyworker"
	"github.com/goeval/goeval/metrics"
)

// ifevalGolden is internal/ifeval's agreement golden: checks and responses.
type ifevalGolden struct {
	Checks []struct {
		ID     string         `json:"id"`
		Kwargs map[string]any `json:"kwargs"`
		Prompt string         `json:"prompt"`
	} `json:"checks"`
	Responses []string `json:"responses"`
}

func readIfevalGolden(t *testing.T) ifevalGolden {
	t.Helper()
	f, err := os.Open("../internal/ifeval/testdata/agreement.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var g ifevalGolden
	if err := json.NewDecoder(z).Decode(&g); err != nil {
		t.Fatal(err)
	}
	return g
}

// ifevalDocs are documents of 1 to 3 instructions drawn from the golden's
// checks, each with a response, as lm-eval's dataset rows look.
func ifevalDocs(g ifevalGolden, n int) ([]Doc, []string) {
	rng := rand.New(rand.NewPCG(38, 1))
	var docs []Doc
	var resps []string
	for len(docs) < n {
		var ids, kws []any
		for k := 1 + rng.IntN(3); k > 0; k-- {
			c := g.Checks[rng.IntN(len(g.Checks))]
			ids = append(ids, c.ID)
			kw := map[string]any{}
			for key, v := range c.Kwargs {
				if f, ok := v.(float64); ok {
					v = int64(f)
				}
				kw[key] = v
			}
			kws = append(kws, kw)
		}
		prompt := g.Checks[rng.IntN(len(g.Checks))].Prompt
		docs = append(docs, Doc{"key": int64(len(docs)), "prompt": prompt, "instruction_id_list": ids, "kwargs": kws})
		resps = append(resps, g.Responses[rng.IntN(len(g.Responses))])
	}
	return docs, resps
}

// ifevalPython is the .venv Python when it can import lm-eval's ifeval
// checks (langdetect, immutabledict, nltk; PYTHONPATH may add them).
func ifevalPython(t *testing.T) string {
	t.Helper()
	p, _ := filepath.Abs("../.venv/bin/python")
	if exec.Command(p, "-c", "import lm_eval.tasks.ifeval.utils").Run() != nil {
		t.Skip("no .venv Python that imports lm_eval.tasks.ifeval.utils (langdetect, immutabledict, nltk)")
	}
	return p
}

// TestIfevalHooksMatchPython runs the Go process_results and
// agg_inst_level_acc and lm-eval's utils.py functions on the same
// documents: the per-sample metric values and the aggregates must be equal.
func TestIfevalHooksMatchPython(t *testing.T) {
	py := ifevalPython(t)
	out, err := exec.Command(py, "-c", "import lm_eval.tasks.ifeval.utils as u; print(u.__file__, end='')").Output()
	if err != nil {
		t.Fatal(err)
	}
	rt := pyworker.New(py, 0)
	defer rt.Close()
	words := strings.Fields(string(out)) // nltk may print before it
	mod := words[len(words)-1]
	f := &pyFunc{rt: rt, file: mod, attr: "process_results", name: "utils.process_results", key: "process_results"}
	agg := &pyFunc{rt: rt, file: mod, attr: "agg_inst_level_acc", name: "utils.agg_inst_level_acc", key: "aggregation"}
	if err := f.resolve(hookResults); err != nil {
		t.Fatal(err)
	}
	if err := agg.resolve(hookAgg); err != nil {
		t.Fatal(err)
	}
	names := []string{"prompt_level_strict_acc", "inst_level_strict_acc", "prompt_level_loose_acc", "inst_level_loose_acc"}
	s := &spec{output: GenerateUntil}
	for _, n := range names {
		s.metrics = append(s.metrics, MetricSpec{Name: n, Aggregation: "mean", HigherIsBetter: true})
	}
	sc := &yamlScorer{pyResults: f}
	docs, resps := ifevalDocs(readIfevalGolden(t), 600)
	perMetric := map[string][]metrics.Value{}
	for i, d := range docs {
		goM, err := ifevalResults(d, []Response{{Text: resps[i]}})
		if err != nil {
			t.Fatal(err)
		}
		pyM, err := sc.pyResultsCall(s, OrderedDoc(d, nil), []any{resps[i]})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(goM, pyM) {
			t.Errorf("document %d %v on %q:\nGo     %v\nPython %v", i, d["instruction_id_list"], resps[i], goM, pyM)
		}
		for _, n := range []string{"inst_level_strict_acc", "inst_level_loose_acc"} {
			perMetric[n] = append(perMetric[n], goM[n])
		}
	}
	for n, vs := range perMetric {
		goA, err := aggInstLevelAcc(vs)
		if err != nil {
			t.Fatal(err)
		}
		pyA, err := pyAggregate(agg)(vs)
		if err != nil {
			t.Fatal(err)
		}
		if goA != pyA {
			t.Errorf("%s: Go aggregates %v, Python %v", n, goA, pyA)
		}
	}
}

// TestIfevalHookLeavesModelChecksToPython: a document with an instruction
// whose check needs langdetect or punkt is refused with ErrNeedsPython
// (which the scorer hands to the Python function), never guessed.
func TestIfevalHookLeavesModelChecksToPython(t *testing.T) {
	for _, id := range []string{"language:response_language", "length_constraints:number_sentences",
		"change_case:english_lowercase", "change_case:english_capital", "change_case:capital_word_frequency"} {
		d := Doc{"prompt": "p", "instruction_id_list": []any{"punctuation:no_comma", id}, "kwargs": []any{map[string]any{}, map[string]any{}}}
		_, err := ifevalResults(d, []Response{{Text: "hello"}})
		if !needsPython(err) {
			t.Errorf("%s: got %v, want ErrNeedsPython", id, err)
		}
	}
	if _, ok := builtinHook("leaderboard.ifeval.utils.agg_inst_level_acc"); !ok {
		t.Error("no Go agg_inst_level_acc for leaderboard_ifeval")
	}
	_ = ifeval.ErrNeedsPython
}
