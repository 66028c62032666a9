package goeval

import (
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/tasks"
)

// Shard selects one part of an evaluation's documents (Options.Shard), so
// that several processes, on one machine or many, evaluate a run together
// and Merge puts their parts back into the run's results.
//
// Every task's documents are split on their own: each document, in
// dataset order, goes to the shard that holds the fewest estimated tokens
// of that task so far (ties: the next shard after the last one chosen,
// starting from one picked by the task's name). A document's shard thus
// depends only on the documents before it: the same document goes to the
// same shard whatever --limit is, since a limit keeps the first documents.
// (With lm-eval's --samples, which picks documents by index, the split is
// over the chosen documents.)
type Shard struct {
	Index int // 0 ≤ Index < Count
	Count int // 0: the whole run (no sharding); 1: one shard holding every document
}

// On reports whether the evaluation is one shard of a run.
func (s Shard) On() bool { return s.Count > 0 }

// String is "index/count", as --shard takes it.
func (s Shard) String() string { return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count) }

// Validate checks 0 ≤ Index < Count (or the zero Shard).
func (s Shard) Validate() error {
	if s == (Shard{}) {
		return nil
	}
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return errs.BadInputf("shard %s: want INDEX/COUNT with 0 ≤ INDEX < COUNT", s)
	}
	return nil
}

// ParseShard reads "INDEX/COUNT" (e.g. 0/4).
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	a, err1 := strconv.Atoi(strings.TrimSpace(i))
	b, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, errs.BadInputf("shard %q: want INDEX/COUNT, e.g. 0/4", s)
	}
	sh := Shard{Index: a, Count: b}
	if b < 1 {
		return Shard{}, errs.BadInputf("shard %q: COUNT must be at least 1", s)
	}
	return sh, sh.Validate()
}

// TaskShard is a shard's part of one task (TaskResult.Shard).
type TaskShard struct {
	RunDocs   int   // the task's documents in the whole run (after --limit)
	DocIDs    []int // the documents this shard evaluated, in dataset order
	Tokens    int   // their estimated tokens (DocTokens)
	RunTokens int   // the estimated tokens of the task's documents in the whole run
}

// DocTokens estimates what a document costs a model before any model runs:
// its prompt bytes over 4 (a context that several requests share counts
// once, as the engine scores it once), plus, for a generate request, its
// max_gen_toks (an upper bound of the tokens it decodes).
func DocTokens(inst *tasks.Instance) int {
	bytes, gen := 0, 0
	seen := map[string]bool{}
	for _, q := range inst.Requests {
		switch q.Kind {
		case tasks.ReqLoglikelihood:
			if !seen[q.Context] {
				seen[q.Context] = true
				bytes += len(q.Context)
			}
			bytes += len(q.Continuation)
		case tasks.ReqRolling:
			bytes += len(q.Text)
		case tasks.ReqGenerate:
			bytes += len(q.Context)
			gen += q.MaxTokens
		}
	}
	return (bytes+3)/4 + gen
}

// AssignShards returns each document's shard (0…count-1) for a task's
// documents of the given estimated costs, in dataset order (see Shard).
func AssignShards(task string, costs []int, count int) []int {
	out := make([]int, len(costs))
	if count <= 1 {
		return out
	}
	h := fnv.New32a()
	h.Write([]byte(task))
	next := int(h.Sum32() % uint32(count)) // where the search for the least-loaded shard starts
	load := make([]int64, count)
	for i, c := range costs {
		best := next
		for k := 1; k < count; k++ {
			if s := (next + k) % count; load[s] < load[best] {
				best = s
			}
		}
		out[i] = best
		load[best] += int64(c) + 1 // + 1: documents of no estimated cost still spread
		next = (best + 1) % count
	}
	return out
}

// shardRun keeps the documents of run r that belong to shard s, and
// describes the split.
func shardRun(r *taskRun, s Shard) *TaskShard {
	costs := make([]int, len(r.insts))
	ts := &TaskShard{RunDocs: len(r.insts)}
	for i := range r.insts {
		costs[i] = DocTokens(&r.insts[i])
		ts.RunTokens += costs[i]
	}
	kept := r.insts[:0:0]
	for i, sh := range AssignShards(r.task.Name(), costs, s.Count) {
		if sh == s.Index {
			kept = append(kept, r.insts[i])
			ts.DocIDs = append(ts.DocIDs, r.insts[i].DocID)
			ts.Tokens += costs[i]
		}
	}
	r.insts = kept
	return ts
}
