package report

import (
	"fmt"

	"github.com/goeval/goeval"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/tasks"
)

// recorded is the responses the shards' samples files hold
// (goeval.Recorded): each document's line, whose "arguments" are its
// requests and whose "resps" their responses, as str() of the model's
// values (a log-prob in Python's repr reads back to the same float64).
type recorded struct {
	docs  map[string][]int
	lines map[string]map[int]recordedLine
}

// recordedLine is a document's line and the shard it comes from.
type recordedLine struct {
	shard *ShardRun
	line  *Sample
}

// Recorded returns the responses of shards for goeval.Merge. A document
// that two shards hold is the second one's (CheckShards refuses such
// sets before).
func Recorded(shards []*ShardRun) goeval.Recorded {
	r := &recorded{docs: map[string][]int{}, lines: map[string]map[int]recordedLine{}}
	for _, s := range shards {
		for task, docs := range s.docs {
			if r.lines[task] == nil {
				r.lines[task] = map[int]recordedLine{}
			}
			for id, line := range docs {
				if _, dup := r.lines[task][id]; !dup {
					r.docs[task] = append(r.docs[task], id)
				}
				r.lines[task][id] = recordedLine{s, line}
			}
		}
	}
	return r
}

// Docs implements goeval.Recorded.
func (r *recorded) Docs(task string) []int { return r.docs[task] }

// Responses implements goeval.Recorded: the line's responses, after
// checking that its requests are inst's.
func (r *recorded) Responses(task string, inst *tasks.Instance) ([]tasks.Response, error) {
	rl, ok := r.lines[task][inst.DocID]
	if !ok {
		return nil, errs.BadInputf("task %s doc %d: no shard holds it", task, inst.DocID)
	}
	out, err := lineResponses(rl.line, inst)
	if err != nil {
		return nil, errs.BadInputf("shard %s: %s doc %d: %v", rl.shard.Label(), task, inst.DocID, err)
	}
	return out, nil
}

// lineResponses reads the responses of s, a samples line of inst, after
// checking that its arguments are inst's requests.
func lineResponses(s *Sample, inst *tasks.Instance) ([]tasks.Response, error) {
	resps, _ := s.Resps.([]any)
	n := len(inst.Requests)
	if len(resps) != n || len(s.Arguments) != n {
		return nil, fmt.Errorf("the line holds %d requests and %d responses; the run builds %d requests", len(s.Arguments), len(resps), n)
	}
	out := make([]tasks.Response, n)
	for i, q := range inst.Requests {
		if !sameRequest(s.Arguments[i], q) {
			return nil, fmt.Errorf("request %d's prompt differs from the run's (other data, task files or prompt settings)", i)
		}
		one, _ := resps[i].([]any)
		if len(one) != q.Times() {
			return nil, fmt.Errorf("response %d is not a list of %d answers (the request's repeats)", i, q.Times())
		}
		all := make([]tasks.Response, len(one))
		for j, v := range one {
			var err error
			if all[j], err = response(q.Kind, v); err != nil {
				return nil, fmt.Errorf("response %d: %w", i, err)
			}
			all[j].Thought = lineThought(s, i, j)
		}
		out[i] = all[0]
		if len(all) > 1 {
			out[i].Repeats = all
		}
	}
	return out, nil
}

// sameRequest reports whether a line's arguments are request q's.
func sameRequest(args []any, q tasks.Request) bool {
	str := func(i int) string {
		if i >= len(args) {
			return "\x00missing"
		}
		s, _ := args[i].(string)
		return s
	}
	switch q.Kind {
	case tasks.ReqLoglikelihood:
		return str(0) == q.Context && str(1) == q.Continuation
	case tasks.ReqRolling:
		return str(0) == q.Text
	}
	return str(0) == q.Context
}

// response reads one response of kind k from its logged form:
// [log-prob, is-greedy] for loglikelihood, the log-prob for rolling, the
// text for generation.
func response(k tasks.RequestKind, v any) (tasks.Response, error) {
	switch k {
	case tasks.ReqLoglikelihood:
		pair, _ := v.([]any)
		if len(pair) != 2 {
			return tasks.Response{}, fmt.Errorf("want [log-prob, is-greedy], have %v", v)
		}
		lp, err := logProb(pair[0])
		greedy := py.Str(pair[1])
		if greedy != "True" && greedy != "False" {
			return tasks.Response{}, fmt.Errorf("is-greedy %q is neither True nor False", greedy)
		}
		return tasks.Response{LogProb: lp, IsGreedy: greedy == "True"}, err
	case tasks.ReqRolling:
		lp, err := logProb(v)
		return tasks.Response{LogProb: lp}, err
	}
	text, ok := v.(string)
	if !ok {
		return tasks.Response{}, fmt.Errorf("want the generated text, have %v", v)
	}
	return tasks.Response{Text: text}, nil
}

// logProb parses a logged log-prob (Python's repr of a float).
func logProb(v any) (float64, error) {
	f, ok := py.ParseFloat(py.Str(v))
	if !ok {
		return 0, fmt.Errorf("log-prob %v is not a number", v)
	}
	return f, nil
}
