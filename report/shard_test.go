package report

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/goeval/goeval/tasks"
)

// TestLineResponses: a samples line's logged responses read back as the
// model's values (non-finite log-probs included), and a line whose
// prompts are not the run's is refused.
func TestLineResponses(t *testing.T) {
	inst := &tasks.Instance{DocID: 3, Requests: []tasks.Request{
		{Kind: tasks.ReqLoglikelihood, Context: "Q: 1+1?\nA:", Continuation: " 2"},
		{Kind: tasks.ReqLoglikelihood, Context: "Q: 1+1?\nA:", Continuation: " 3"},
		{Kind: tasks.ReqRolling, Text: "some text"},
		{Kind: tasks.ReqGenerate, Context: "Say hi:"},
	}}
	want := []tasks.Response{{LogProb: -1.2345678901234567, IsGreedy: true}, {LogProb: math.Inf(-1)}, {LogProb: math.NaN()}, {Text: " hi\n"}}
	line := loggedLine(t, inst, want)
	got, err := lineResponses(&line, inst)
	if err != nil {
		t.Fatal(err)
	}
	eq := reflect.DeepEqual // tasks.Response holds a slice (Repeats): not comparable with !=
	if !eq(got[0], want[0]) || !eq(got[1], want[1]) || !math.IsNaN(got[2].LogProb) || !eq(got[3], want[3]) {
		t.Fatalf("read back %+v, want %+v", got, want)
	}
	other := *inst
	other.Requests = append([]tasks.Request{}, inst.Requests...)
	other.Requests[1].Continuation = " 4"
	if _, err := lineResponses(&line, &other); err == nil || !strings.Contains(err.Error(), "request 1's prompt differs") {
		t.Fatalf("another prompt: %v", err)
	}
	if _, err := lineResponses(&line, &tasks.Instance{Requests: inst.Requests[:2]}); err == nil {
		t.Fatal("a line of 4 requests read for 2")
	}
}

// loggedLine is inst's samples line with responses resps, as written and
// read back.
func loggedLine(t *testing.T, inst *tasks.Instance, resps []tasks.Response) Sample {
	t.Helper()
	var args [][]any
	var rs [][]any
	for i, q := range inst.Requests {
		switch q.Kind {
		case tasks.ReqLoglikelihood:
			args, rs = append(args, []any{q.Context, q.Continuation}), append(rs, []any{[]any{resps[i].LogProb, resps[i].IsGreedy}})
		case tasks.ReqRolling:
			args, rs = append(args, []any{q.Text}), append(rs, []any{resps[i].LogProb})
		default:
			args, rs = append(args, []any{q.Context, map[string]any{"until": []any{}}}), append(rs, []any{resps[i].Text})
		}
	}
	s := Sample{DocID: inst.DocID, Doc: map[string]any{}, Arguments: args, Resps: rs, Filter: "none"}
	b, err := EncodeSampleLine(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := parseSampleLine(b)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// TestDefaultMergeOutput: OUT of OUT/<model>/shard-i-of-N when every shard
// is so placed under one OUT; none otherwise.
func TestDefaultMergeOutput(t *testing.T) {
	shard := func(dir, model string, i, n int) *ShardRun {
		return &ShardRun{Dir: dir, Manifest: ShardManifest{ModelName: model, Index: i, Count: n}}
	}
	out, ok := DefaultMergeOutput([]*ShardRun{shard("res/__m__q/shard-0-of-2", "/m/q", 0, 2), shard("res/__m__q/shard-1-of-2/", "/m/q", 1, 2)})
	if !ok || out != "res" {
		t.Errorf("got %q, %v; want res", out, ok)
	}
	for _, s := range [][]*ShardRun{
		{shard("res/q/shard-0-of-2", "q", 0, 2), shard("other/q/shard-1-of-2", "q", 1, 2)},
		{shard("res/q/copy", "q", 0, 1)},
		{shard("res/p/shard-0-of-1", "q", 0, 1)},
	} {
		if out, ok := DefaultMergeOutput(s); ok {
			t.Errorf("%s…: got %q, want none", s[0].Dir, out)
		}
	}
}
