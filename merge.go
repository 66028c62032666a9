package goeval

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/tasks"
)

// Recorded holds the responses that shards of a run recorded (goeval
// merge reads them from the shards' samples files: report.Recorded).
type Recorded interface {
	// Docs are the documents of task that hold recorded responses.
	Docs(task string) []int
	// Responses are the responses recorded for inst's requests, in order.
	// The implementation checks that inst's requests are those recorded
	// (the same prompts), and fails naming the shard otherwise.
	Responses(task string, inst *tasks.Instance) ([]tasks.Response, error)
}

// Merge evaluates the run opts describes with the responses of rec
// instead of a model: it builds every task's documents as Evaluate does
// (opts.Shard is ignored), takes each request's response from rec, and
// scores, aggregates (stderrs, bootstrap, groups) and returns the results
// through Evaluate's own code, so that the results equal a one-process
// Evaluate with the model that answered. Every document of the run must
// be recorded, and rec must hold no other. With
// opts.Task.ApplyChatTemplate, opts.Task.ChatTemplate must be the
// model's template (there is no model to ask).
func Merge(ctx context.Context, opts Options, rec Recorded) (*Results, error) {
	start := time.Now()
	opts.Shard = Shard{}
	opts, err := settle(opts)
	if err != nil {
		return nil, err
	}
	if opts.Task.ApplyChatTemplate && opts.Task.ChatTemplate == nil {
		return nil, errs.BadInputf("merge: the run applied a chat template: give the model's (Options.Task.ChatTemplate)")
	}
	ev, err := expand(opts, start)
	if err != nil {
		return nil, err
	}
	if err := ev.codeTasks(&opts); err != nil {
		return nil, err
	}
	if err := ev.build(ctx, opts, newProgress(nil, start)); err != nil {
		return nil, err
	}
	for _, r := range ev.runs {
		if err := r.replay(rec); err != nil {
			return nil, err
		}
	}
	return ev.score(opts)
}

// replay fills r's responses from rec, checking that rec holds exactly
// r's documents.
func (r *taskRun) replay(rec Recorded) error {
	name := r.task.Name()
	want := make([]int, len(r.insts))
	for i, inst := range r.insts {
		want[i] = inst.DocID
	}
	got := slices.Clone(rec.Docs(name))
	slices.Sort(got)
	if missing, extra := diffSorted(sortedCopy(want), got); len(missing) > 0 || len(extra) > 0 {
		return errs.BadInputf("task %s: the shards hold %d of the run's %d documents%s%s",
			name, len(want)-len(missing), len(want), docList(" missing", missing), docList(" not in the run", extra))
	}
	r.resps = make([][]tasks.Response, len(r.insts))
	for i := range r.insts {
		resps, err := rec.Responses(name, &r.insts[i])
		if err != nil {
			return err
		}
		if len(resps) != len(r.insts[i].Requests) {
			return errs.BadInputf("task %s doc %d: %d responses recorded for %d requests", name, r.insts[i].DocID, len(resps), len(r.insts[i].Requests))
		}
		r.resps[i] = resps
	}
	return nil
}

// sortedCopy returns xs sorted, in a new slice.
func sortedCopy(xs []int) []int {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}

// diffSorted returns what want has and got lacks, and what got has and
// want lacks (both sorted, duplicates in got count as extra).
func diffSorted(want, got []int) (missing, extra []int) {
	i, j := 0, 0
	for i < len(want) || j < len(got) {
		switch {
		case j == len(got) || (i < len(want) && want[i] < got[j]):
			missing = append(missing, want[i])
			i++
		case i == len(want) || got[j] < want[i]:
			extra = append(extra, got[j])
			j++
		default:
			i, j = i+1, j+1
		}
	}
	return missing, extra
}

// docList is " <label> docs 3, 7, 9" (at most 5 named), or "".
func docList(label string, ids []int) string {
	if len(ids) == 0 {
		return ""
	}
	s := fmt.Sprintf(";%s: doc", label)
	if len(ids) > 1 {
		s += "s"
	}
	for i, id := range ids {
		if i == 5 {
			return s + fmt.Sprintf(" … (%d in all)", len(ids))
		}
		if i > 0 {
			s += ","
		}
		s += fmt.Sprintf(" %d", id)
	}
	return s
}
