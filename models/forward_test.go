package models

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/testutil"
)

// This file is a minimal scorer for model tests that need no engine: one
// request per graph, full logits, log-softmax on the device, sums on the
// host in float64.

// scoreReq is one {"context_ids", "continuation_ids"} request.
type scoreReq = testutil.Request

// goldenLine is one line of a reference file.
type goldenLine = testutil.Reference

// testModel is a model loaded on the pure-Go backend.
type testModel struct {
	backend backends.Backend
	ctx     *context.Context
	model   Model
}

// loadTestModel loads dir with optional merged-adapter transform.
func loadTestModel(t *testing.T, dir string, tf WeightTransform) *testModel {
	t.Helper()
	cfg, err := LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	set, err := OpenTensors(dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	backend, err := simplego.New("ops_sequential") // v0.26 parallel ops can deadlock its worker pool
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.New()
	if err := LoadWeightsWith(ctx, backend, cfg, set, dtypes.Float32, tf); err != nil {
		t.Fatal(err)
	}
	return &testModel{backend: backend, ctx: ctx, model: m}
}

// score returns per-token continuation log-probs of each request with
// separate-mode adapter index (-1: none).
func (tm *testModel) score(t *testing.T, reqs []scoreReq, adapter int) [][]float64 {
	t.Helper()
	exec, err := context.NewExec(tm.backend, tm.ctx.Reuse(), func(ctx *context.Context, tokens, cont *Node) *Node {
		// cont [C] only carries the number of scored positions (in the shape).
		g := tokens.Graph()
		SetActiveAdapter(ctx, g, adapter)
		n, c := tokens.Shape().Dim(1), cont.Shape().Dim(0)
		pos := Iota(g, tokens.Shape(), 1)
		h := tm.model.Forward(ctx, Inputs{Tokens: tokens, Positions: pos}).Hidden
		h = Slice(h, AxisRange(), AxisRange(n-c, n), AxisRange())
		logits := ConvertDType(tm.model.Logits(ctx, h), dtypes.Float32)
		logits.AssertDims(1, c, tm.model.Config().VocabSize)
		return LogSoftmax(logits)
	})
	if err != nil {
		t.Fatal(err)
	}
	exec.SetMaxCache(-1)
	out := make([][]float64, len(reqs))
	for i, r := range reqs {
		all := append(append([]int32{}, r.ContextIDs...), r.ContinuationIDs...)
		in := all[:len(all)-1]
		res, err := exec.Exec1([][]int32{in}, r.ContinuationIDs)
		if err != nil {
			t.Fatal(err)
		}
		lp := res.Value().([][][]float32)[0]
		for j, tok := range r.ContinuationIDs {
			out[i] = append(out[i], float64(lp[j][tok]))
		}
	}
	return out
}

// maxDiff compares summed log-probs with a golden file's logprob_sum.
func maxDiff(got [][]float64, want []goldenLine) float64 {
	d := 0.0
	for i, g := range got {
		s := 0.0
		for _, x := range g {
			s += x
		}
		d = math.Max(d, math.Abs(s-want[i].LogProbSum))
	}
	return d
}

// maxDiffRuns is the largest per-token difference between two runs.
func maxDiffRuns(a, b [][]float64) float64 {
	d := 0.0
	for i := range a {
		for j := range a[i] {
			d = math.Max(d, math.Abs(a[i][j]-b[i][j]))
		}
	}
	return d
}

// testdata is this package's golden folder.
var testdata = filepath.Join("testdata")
