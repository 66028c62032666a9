package tasks

import (
	"sync"
	"sync/atomic"

	"github.com/goeval/goeval/internal/py"
)

// lm-eval's global random module, as the process_docs functions that draw
// from it see it (leaderboard/gpqa's shuffles the four answers of every
// document). simple_evaluate seeds it with 0; then, while lm-eval builds
// the task tree depth first, each group adds its members once all are
// built, and Group.add reads a task member's task_name twice —
// ConfigurableTask.task_name is getattr(config, "task", random_task_id()),
// whose default is evaluated anyway: random.choices(k=8) over 36
// characters, eight random() calls. So a task's process_docs sees the seed
// advanced by two random_task_id calls per task member of every group
// completed before it (Index.Expand counts them) and by the draws of the
// process_docs run before it. Group members that are groups draw nothing
// (a Group has no task_name); tags are taken to draw nothing either.
//
// goeval keeps one such stream per evaluation (per Expand) for its Go
// hooks, and the Python worker keeps its own, reseeded when a request
// names a new epoch. The two agree as long as the Go and Python hooks of
// one evaluation do not both draw from it.

// lmRandom is one evaluation's copy of lm-eval's global random.
type lmRandom struct {
	epoch int64 // identifies this stream to the Python worker
	mu    sync.Mutex
	rnd   *py.Rand
	ids   int // random_task_id calls drawn so far
}

var lmRandomEpochs atomic.Int64

// newLMRandom is the stream as simple_evaluate seeds it.
func newLMRandom() *lmRandom {
	return &lmRandom{epoch: lmRandomEpochs.Add(1), rnd: py.NewRand(0)}
}

// at is the stream after taskIDs random_task_id calls in all (it never
// goes back: tasks are built in lm-eval's order), locked until done is
// called.
func (g *lmRandom) at(taskIDs int) (rnd *py.Rand, done func()) {
	g.mu.Lock()
	for ; g.ids < taskIDs; g.ids++ {
		for range 8 { // random.choices(string.ascii_lowercase + string.digits, k=8)
			g.rnd.Random()
		}
	}
	return g.rnd, g.mu.Unlock
}

// lmRandomState is where a task's process_docs finds lm-eval's global
// random: the stream and the random_task_id calls before the task.
type lmRandomState struct {
	stream  *lmRandom
	taskIDs int
}

// lmState is s's state, a stream of its own (as if the task were
// evaluated alone) when no Expand placed it. Tasks are built one at a
// time (evaluate.go's build).
func (s *spec) lmState() lmRandomState {
	if s.lm.stream == nil {
		s.lm.stream = newLMRandom()
	}
	return s.lm
}

// pyState is the worker request's lm_random value.
func (st lmRandomState) pyState() *py.Map[any] {
	m := py.NewMap[any]()
	m.Set("epoch", st.stream.epoch)
	m.Set("task_ids", int64(st.taskIDs))
	return m
}
