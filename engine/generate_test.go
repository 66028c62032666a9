package engine

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/goeval/goeval/engine/plan"
	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/models"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
)

// fullLogits runs the full-sequence forward (models.Model.Forward, no
// cache) on ids and returns the f32 logits of every position.
func fullLogits(t *testing.T, e *Engine, ids []int32) [][]float32 {
	t.Helper()
	x, err := mlctx.NewExec(e.backend, e.ctx, func(ctx *mlctx.Context, tokens *Node) *Node {
		b, n := tokens.Shape().Dim(0), tokens.Shape().Dim(1)
		pos := Iota(tokens.Graph(), shapes.Make(dtypes.Int32, b, n), 1)
		return ConvertDType(e.model.Logits(ctx, e.model.Forward(ctx, models.Inputs{Tokens: tokens, Positions: pos}).Hidden), dtypes.Float32)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Finalize()
	outs, err := x.Exec(tensors.FromFlatDataAndDimensions(slices.Clone(ids), 1, len(ids)))
	if err != nil {
		t.Fatal(err)
	}
	flat := tensors.MustCopyFlatData[float32](outs[0])
	v := len(flat) / len(ids)
	rows := make([][]float32, len(ids))
	for i := range rows {
		rows[i] = flat[i*v : (i+1)*v]
	}
	return rows
}

// maxAbsDiff32 is max |a_i − b_i|.
func maxAbsDiff32(a, b []float32) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

// TestIncrementalLogitsEqualFull: prefill + one-token decode steps with the
// KV cache give the full-sequence logits (≤ 1e-5) at every step, for two
// rows at different positions in one batch (teacher forcing), on models
// with RoPE scaling (llama32) and q/k norms (qwen3).
func TestIncrementalLogitsEqualFull(t *testing.T) {
	for _, name := range []string{"tiny-llama32", "tiny-qwen3"} {
		t.Run(name, func(t *testing.T) {
			e := openFixture(t, name, Options{BatchSize: 2})
			gens, refs := testutil.Generates(t, name)
			seqs := [][]int32{ // prompt + reference continuation: realistic token streams
				append(slices.Clone(gens[2].ContextIDs), refs[2].GeneratedIDs[:10]...),
				append(slices.Clone(gens[1].ContextIDs), refs[1].GeneratedIDs[:6]...),
			}
			prompt := []int{len(gens[2].ContextIDs), 3}
			full := [][][]float32{fullLogits(t, e, seqs[0]), fullLogits(t, e, seqs[1])}
			gs, err := e.genExecs()
			if err != nil {
				t.Fatal(err)
			}
			c, err := e.newCache(2, plan.Shapes{}.T(len(seqs[0]), e.maxLen))
			if err != nil {
				t.Fatal(err)
			}
			defer c.free()
			tp := plan.Shapes{}.T(prompt[0], e.maxLen)
			tok := make([]int32, 2*tp)
			copy(tok, seqs[0][:prompt[0]])
			copy(tok[tp:], seqs[1][:prompt[1]])
			args := []any{tensors.FromFlatDataAndDimensions(tok, 2, tp),
				tensors.FromFlatDataAndDimensions([]int32{int32(prompt[0] - 1), int32(prompt[1] - 1)}, 2),
				tensors.FromFlatDataAndDimensions([]int32{0, 1}, 2), tensors.FromFlatDataAndDimensions([]bool{true, true}, 2)}
			logits, _, err := e.runGen(gs.prefill, "prefill", c, args)
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			check := func(r, pos int, got []float32) {
				d := maxAbsDiff32(got, full[r][pos])
				worst = max(worst, d)
				if d > 1e-5 {
					t.Errorf("row %d position %d: max |Δ logit| = %.3g", r, pos, d)
				}
			}
			v := len(logits) / 2
			check(0, prompt[0]-1, logits[:v])
			check(1, prompt[1]-1, logits[v:])
			for step := 0; prompt[0]+step < len(seqs[0]); step++ {
				toks, pos := make([]int32, 2), make([]int32, 2)
				for r := range 2 {
					if p := prompt[r] + step; p < len(seqs[r]) { // row 1 finishes first: it then idles at position 0
						toks[r], pos[r] = seqs[r][p], int32(p)
					}
				}
				args := []any{tensors.FromFlatDataAndDimensions(toks, 2), tensors.FromFlatDataAndDimensions(pos, 2)}
				logits, _, err := e.runGen(gs.decode, "decode", c, args)
				if err != nil {
					t.Fatal(err)
				}
				for r := range 2 {
					if p := prompt[r] + step; p < len(seqs[r]) {
						check(r, p, logits[r*v:(r+1)*v])
					}
				}
			}
			t.Logf("max |Δ logit| over all steps: %.3g", worst)
		})
	}
}

// TestGreedyEqualsArgmaxLoop: greedy generation equals appending the argmax
// of a full forward over the whole sequence, one token at a time.
func TestGreedyEqualsArgmaxLoop(t *testing.T) {
	const steps = 6
	e := openFixture(t, "tiny-qwen2", Options{BatchSize: 4})
	gens, _ := testutil.Generates(t, "tiny-qwen2")
	ctxs := [][]int32{gens[2].ContextIDs, gens[1].ContextIDs, gens[0].ContextIDs}
	got, err := e.generateItems(context.Background(), idItems(t, e, ctxs, []int{steps, steps, steps}))
	if err != nil {
		t.Fatal(err)
	}
	for i, ctx := range ctxs {
		seq := slices.Clone(ctx)
		for range steps {
			l := fullLogits(t, e, seq)
			seq = append(seq, argmax(l[len(l)-1]))
		}
		if want := seq[len(ctx):]; !slices.Equal(got[i].IDs, want) {
			t.Errorf("prompt %d: generated %v, argmax loop %v", i, got[i].IDs, want)
		}
	}
}

// TestGenerateBatchIndependence: each request's output (greedy and
// sampled) is the same alone at batch 1, with others at batch 3 (rows
// refilled as they finish) and in reverse order at batch 8.
func TestGenerateBatchIndependence(t *testing.T) {
	gens, _ := testutil.Generates(t, "tiny-llama")
	var reqs []lm.GenerateRequest
	for i, g := range gens[:6] {
		r := lm.GenerateRequest{ContextIDs: g.ContextIDs, MaxTokens: 3 + i}
		if i%2 == 1 {
			r.Temperature, r.TopP, r.TopK, r.Seed = 0.9, 0.95, 50, uint64(100+i)
		}
		reqs = append(reqs, r)
	}
	reqs = append(reqs, lm.GenerateRequest{ContextIDs: gens[1].ContextIDs, MaxTokens: 8, Temperature: 1.5, Seed: 7})
	ctx := context.Background()
	alone := openFixture(t, "tiny-llama", Options{BatchSize: 1})
	want := make([]lm.GenerateResult, len(reqs))
	for i := range reqs {
		r, err := alone.GenerateUntil(ctx, reqs[i:i+1])
		if err != nil {
			t.Fatal(err)
		}
		want[i] = r[0]
	}
	if slices.Equal(want[1].IDs, want[len(want)-1].IDs[:len(want[1].IDs)]) {
		t.Errorf("different seeds and temperatures on the same prompt gave the same tokens %v", want[1].IDs)
	}
	for _, bs := range []int{3, 8} {
		e := openFixture(t, "tiny-llama", Options{BatchSize: bs})
		in := reqs
		if bs == 8 {
			in = reversed(reqs)
		}
		got, err := e.GenerateUntil(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if bs == 8 {
			got = reversed(got)
		}
		for i := range reqs {
			if !slices.Equal(got[i].IDs, want[i].IDs) || got[i].StopReason != want[i].StopReason {
				t.Errorf("batch %d, request %d: %v (%s), alone %v (%s)", bs, i, got[i].IDs, got[i].StopReason, want[i].IDs, want[i].StopReason)
			}
		}
	}
}
