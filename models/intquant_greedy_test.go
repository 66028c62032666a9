package models

import (
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/ml/context"
)

// argmaxExec compiles the model's argmax over the last c positions of one
// row of tokens ([1, n] → [c] token ids, c from cont's shape).
func (tm *testModel) argmaxExec(t *testing.T) *context.Exec {
	t.Helper()
	exec, err := context.NewExec(tm.backend, tm.ctx.Reuse(), func(ctx *context.Context, tokens, cont *Node) *Node {
		g := tokens.Graph()
		SetActiveAdapter(ctx, g, -1)
		n, c := tokens.Shape().Dim(1), cont.Shape().Dim(0)
		h := tm.model.Forward(ctx, Inputs{Tokens: tokens, Positions: Iota(g, tokens.Shape(), 1)}).Hidden
		h = Slice(h, AxisRange(), AxisRange(n-c, n), AxisRange())
		logits := ConvertDType(tm.model.Logits(ctx, h), dtypes.Float32) // [1, c, vocab]
		return ConvertDType(ArgMax(Reshape(logits, c, -1), -1), dtypes.Int32)
	})
	if err != nil {
		t.Fatal(err)
	}
	exec.SetMaxCache(-1)
	return exec
}

// argmaxLast is the argmax token at each of the last c positions of tokens.
func argmaxLast(t *testing.T, exec *context.Exec, tokens []int32, c int) []int32 {
	t.Helper()
	res, err := exec.Exec1([][]int32{tokens}, make([]int32, c))
	if err != nil {
		t.Fatal(err)
	}
	return res.Value().([]int32)
}

// greedy appends n argmax tokens to ctx, one full forward per token (as
// hf_logprobs.greedy_continuation does), and returns them.
func (tm *testModel) greedy(t *testing.T, ctx []int32, n int) []int32 {
	t.Helper()
	exec := tm.argmaxExec(t)
	seq := append([]int32{}, ctx...)
	for range n {
		seq = append(seq, argmaxLast(t, exec, seq, 1)[0])
	}
	return seq[len(ctx):]
}
