package tasks

import (
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
		{[]string{"leaderboard_musr_object_placements", "leaderboard_gpqa", "leaderboard_musr"},
			map[string]int{"leaderboard_gpqa_main": 0, "leaderboard_musr_team_allocation": 6}},
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
