package tasks

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/internal/py"
)

// TestExpandTaskIDs: the random_task_id draws Expand counts before each
// task, as lm-eval builds the tree (a probe of lm-eval 0.4.13: 48 draws,
// bbh's 24 members added twice, before gpqa's process_docs; none when
// gpqa's group is built alone; tasks given at the top level add nothing).
// The leaderboard group itself needs ifeval's Python (parity/leaderboard's
// "leaderboard" run checks it end to end).
func TestExpandTaskIDs(t *testing.T) {
	ix := NewIndex()
	if _, _, err := ix.IncludePath("../parity/leaderboard/testdata/tasks"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tasks []string
		want  map[string]int
	}{
		{[]string{"leaderboard_mmlu_pro", "leaderboard_bbh", "leaderboard_gpqa", "leaderboard_math_hard", "leaderboard_musr"},
			map[string]int{"leaderboard_mmlu_pro": 0, "leaderboard_bbh_boolean_expressions": 0,
				"leaderboard_gpqa_diamond": 48, "leaderboard_gpqa_main": 48, "leaderboard_math_algebra_hard": 54,
				"leaderboard_musr_team_allocation": 68}},
		{[]string{"leaderboard_gpqa"}, map[string]int{"leaderboard_gpqa_diamond": 0, "leaderboard_gpqa_main": 0}},
		{[]string{"leaderboard_musr_object_placements", "leaderboard_gpqa", "leaderboard_math_hard"},
			map[string]int{"leaderboard_gpqa_main": 0, "leaderboard_math_algebra_hard": 6}},
	} {
		ts, _, err := ix.Expand(c.tasks)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		var stream *lmRandom
		for _, task := range ts {
			s := task.(*spec)
			got[s.name] = s.lm.taskIDs
			if stream == nil {
				stream = s.lm.stream
			} else if s.lm.stream != stream {
				t.Errorf("%v: %s has a stream of its own", c.tasks, s.name)
			}
		}
		for name, want := range c.want {
			if got[name] != want {
				t.Errorf("%v: %s after %d random_task_id draws, want %d", c.tasks, name, got[name], want)
			}
		}
	}
}

// TestLMRandomAt: the stream after n random_task_id calls is Python's
// random.seed(0) then n × random.choices(k=8): 8n random() draws.
func TestLMRandomAt(t *testing.T) {
	g := newLMRandom()
	rnd, done := g.at(3)
	got := rnd.Random()
	done()
	want := py.NewRand(0)
	for range 24 {
		want.Random()
	}
	if w := want.Random(); got != w {
		t.Errorf("after 3 task ids: random() = %v, want %v", got, w)
	}
	if rnd, done := g.at(1); rnd != g.rnd || g.ids != 3 {
		t.Error("the stream went back")
	} else {
		done()
	}
}

// TestWithoutPythonFallback: leaderboard/math's process_results is the
// task file's Python function where the worker imports the module, and
// goeval's Go stand-in where goeval runs no Python or the module does not
// import (math_verify missing, here a package that does not exist).
func TestWithoutPythonFallback(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 on PATH")
	}
	yaml := "task: lbfallback_%s\ndataset_path: x\ntest_split: test\noutput_type: generate_until\n" +
		"doc_to_text: problem\ndoc_to_target: answer\nprocess_results: !function utils.process_results\n" +
		"metric_list:\n  - metric: exact_match\n    aggregation: mean\n"
	for _, c := range []struct {
		name, module, python string
		wantGo               bool
	}{
		{"imports", "def process_results(doc, results):\n    return {'exact_match': 1}\n", "python3", false},
		{"missing", "import goeval_no_such_package\n", "python3", true},
		{"nopython", "def process_results(doc, results):\n    return {'exact_match': 1}\n", "", true},
	} {
		dir := filepath.Join(t.TempDir(), c.name, "leaderboard", "math")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "utils.py"), []byte(c.module), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "t.yaml"), []byte(fmt.Sprintf(yaml, c.name)), 0o644); err != nil {
			t.Fatal(err)
		}
		ix := NewIndex()
		ix.SetPython(c.python, 0)
		if _, _, err := ix.IncludePath(dir); err != nil {
			t.Fatal(err)
		}
		s, err := ix.spec("lbfallback_" + c.name)
		t.Cleanup(func() { ix.Close() })
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		doc := Doc{"problem": "p", "solution": "$\\boxed{5}$", "answer": "5"}
		res, err := s.score(s, &Instance{Doc: doc, DocKeys: map[string][]string{"": {"problem", "solution", "answer"}}},
			[]Response{{Text: "no answer"}})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		em, _ := res["none"].Metrics["exact_match"].Float()
		if isGo := em == 0; isGo != c.wantGo { // the Python stub says 1, the Go hook 0
			t.Errorf("%s: the Go hook answers: %v, want %v", c.name, isGo, c.wantGo)
		}
	}
}
