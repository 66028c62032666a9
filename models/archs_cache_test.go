package models

import (
	"math"
	"path/filepath"
	"testing"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"
)

// TestArchsDecodeMatchesHidden: for each new architecture, Prefill of the
// first n−1 tokens into a 16-slot cache followed by Decode of token n gives
// the same last-position logits as the full forward (n = 12, past Gemma's
// 5-token sliding window).
func TestArchsDecodeMatchesHidden(t *testing.T) {
	const n, slots = 12, 16
	ids := []int32{5, 17, 99, 3, 42, 8, 77, 120, 64, 31, 9, 55}
	for _, name := range []string{"phi", "phi3", "gemma2", "gemma3"} {
		t.Run(name, func(t *testing.T) {
			tm := loadTestModel(t, filepath.Join(testdata, "archs", name), nil)
			cm := tm.model
			exec, err := context.NewExec(tm.backend, tm.ctx.Reuse(), func(ctx *context.Context, tokens *Node) []*Node {
				g := tokens.Graph()
				full := cm.Forward(ctx, Inputs{Tokens: tokens, Positions: Iota(g, tokens.Shape(), 1)}).Hidden
				last := Reshape(Slice(full, AxisRange(), AxisRange(n-1, n), AxisRange()), 1, -1)
				kv := cm.Forward(ctx, Inputs{Tokens: Slice(tokens, AxisRange(), AxisRange(0, n-1)), ReturnKV: true}).KV
				for i := range kv { // pad the cache [1, K, n−1, D] to `slots` positions
					pad := func(x *Node) *Node {
						z := ZerosLike(Slice(x, AxisRange(), AxisRange(), AxisRange(0, slots-(n-1))))
						return Concatenate([]*Node{x, z}, 2)
					}
					kv[i] = KV{K: pad(kv[i].K), V: pad(kv[i].V)}
				}
				dec := cm.Forward(ctx, Inputs{Tokens: Reshape(Slice(tokens, AxisRange(), AxisRange(n-1, n)), 1),
					Positions: Const(g, []int32{n - 1}), Cache: kv}).Hidden
				return []*Node{cm.Logits(ctx, last), cm.Logits(ctx, dec)}
			})
			if err != nil {
				t.Fatal(err)
			}
			out, err := exec.Exec([][]int32{ids})
			if err != nil {
				t.Fatal(err)
			}
			a, b := out[0].Value().([][]float32)[0], out[1].Value().([][]float32)[0]
			d := 0.0
			for i := range a {
				d = math.Max(d, math.Abs(float64(a[i]-b[i])))
			}
			t.Logf("%s: max |Δ logit| full vs prefill+decode = %.3g", name, d)
			if d > 1e-5 {
				t.Errorf("decode logits differ from the full forward by %g", d)
			}
		})
	}
}
