package nn

import (
	"fmt"
	"math"
	"sync"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
)

// RopeScaling mirrors config.json's rope_scaling for the types supported:
// "" or "default" (none), "linear" and "llama3".
type RopeScaling struct {
	Type                          string
	Factor                        float64
	LowFreqFactor, HighFreqFactor float64
	OriginalMaxPositionEmbeddings int
}

// InvFreq returns the rotary inverse frequencies θ_i = base^(-2i/D),
// i < D/2, with the scaling of Hugging Face's ROPE_INIT_FUNCTIONS applied
// ("linear": divided by factor; "llama3": _compute_llama3_parameters).
func InvFreq(headDim int, base float64, s *RopeScaling) ([]float64, error) {
	if headDim <= 0 || headDim%2 != 0 {
		return nil, fmt.Errorf("rope: head_dim %d must be a positive even number", headDim)
	}
	inv := make([]float64, headDim/2)
	for i := range inv {
		// HF computes this in float32: 1 / base^(2i/D).
		inv[i] = float64(float32(1.0 / math.Pow(base, float64(2*i)/float64(headDim))))
	}
	if s == nil {
		return inv, nil
	}
	switch s.Type {
	case "", "default":
	case "linear":
		if s.Factor <= 0 {
			return nil, fmt.Errorf("rope_scaling linear: factor %g must be > 0", s.Factor)
		}
		for i := range inv {
			inv[i] /= s.Factor
		}
	case "llama3":
		if err := llama3Scale(inv, s); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("rope_scaling type %q is not supported (supported: linear, llama3)", s.Type)
	}
	return inv, nil
}

// llama3Scale applies Llama 3.1's frequency-dependent scaling in place
// (transformers modeling_rope_utils._compute_llama3_parameters).
func llama3Scale(inv []float64, s *RopeScaling) error {
	if s.Factor <= 0 || s.OriginalMaxPositionEmbeddings <= 0 || s.HighFreqFactor <= s.LowFreqFactor {
		return fmt.Errorf("rope_scaling llama3: need factor > 0, original_max_position_embeddings > 0 and high_freq_factor > low_freq_factor (got %+v)", *s)
	}
	old := float64(s.OriginalMaxPositionEmbeddings)
	lowWave, highWave := old/s.LowFreqFactor, old/s.HighFreqFactor
	for i, f := range inv {
		wave := 2 * math.Pi / f
		scaled := f
		if wave > lowWave {
			scaled = f / s.Factor
		}
		if !(wave < highWave) && !(wave > lowWave) {
			smooth := (old/wave - s.LowFreqFactor) / (s.HighFreqFactor - s.LowFreqFactor)
			scaled = (1-smooth)*scaled/s.Factor + smooth*scaled
		}
		inv[i] = float64(float32(scaled))
	}
	return nil
}

// ApplyRoPE rotates x by its positions with Hugging Face's rotate_half
// convention: the first and second halves of D form the (re, im) pairs.
// Angles, cos and sin are computed in float32, once per graph for each
// positions node and frequencies (ropeTables), and broadcast over heads
// by the products.
//
//	x [B, T, N, D], positions [B, T] int32, invFreq [D/2] → [B, T, N, D]
func ApplyRoPE(x, positions *Node, invFreq []float64) *Node {
	d := x.Shape().Dim(3)
	if len(invFreq)*2 != d {
		panicf("ApplyRoPE: %d inverse frequencies for head dim %d", len(invFreq), d)
	}
	cos, sin := rotaryTables(positions, invFreq, x.DType()) // [B, T, 1, D]
	x1 := Slice(x, AxisRange(), AxisRange(), AxisRange(), AxisRange(0, d/2))
	x2 := Slice(x, AxisRange(), AxisRange(), AxisRange(), AxisRange(d/2, d))
	rotated := Concatenate([]*Node{Neg(x2), x1}, -1)
	return Add(Mul(x, cos), Mul(rotated, sin))
}

// ropeTables holds the rotary tables built for the graph being built:
// every layer rotates q and k by the same positions and frequencies, and
// cos and sin per element cost more than the rotation (24 layers × 2 ×
// [B, T, D] of each, ~3 % of a Qwen2.5-0.5B scoring pass on goeval's
// backend). Graphs may be built at once (engine's compileAhead), so the
// tables are kept per graph, for the last maxRopeGraphs graphs.
var ropeTables ropeTablesT

// ropeTablesT is ropeTables' type: the tables by graph, oldest graph first
// in order.
type ropeTablesT struct {
	sync.Mutex
	order   []*Graph
	byGraph map[*Graph]map[ropeKey][2]*Node
}

// maxRopeGraphs bounds the graphs whose tables are kept (a dropped graph's
// next layer rebuilds its tables: the same nodes' values, a few more ops).
const maxRopeGraphs = 16

// ropeKey names one table pair: frequencies by their slice (a model keeps
// one per kind of layer).
type ropeKey struct {
	positions *Node
	inv       *float64
	n         int
	dtype     dtypes.DType
}

// rotaryTables returns cos and sin of positions·invFreq, each half
// repeated (rotate_half), in dtype, as [B, T, 1, D].
func rotaryTables(positions *Node, invFreq []float64, dtype dtypes.DType) (cos, sin *Node) {
	key := ropeKey{positions, &invFreq[0], len(invFreq), dtype}
	t := &ropeTables
	t.Lock()
	defer t.Unlock()
	m := t.tables(positions.Graph())
	if c, ok := m[key]; ok {
		return c[0], c[1]
	}
	b, s, h := positions.Shape().Dim(0), positions.Shape().Dim(1), len(invFreq)
	inv := make([]float32, h)
	for i, f := range invFreq {
		inv[i] = float32(f)
	}
	invNode := Reshape(Const(positions.Graph(), inv), 1, 1, h)                      // [1, 1, D/2]
	pos := Reshape(ConvertDType(positions, dtypes.Float32), b, s, 1)                // [B, T, 1]
	angles := Mul(BroadcastToDims(pos, b, s, h), BroadcastToDims(invNode, b, s, h)) // [B, T, D/2]
	angles = Concatenate([]*Node{angles, angles}, -1)                               // [B, T, D]
	cos = ConvertDType(Reshape(Cos(angles), b, s, 1, 2*h), dtype)
	sin = ConvertDType(Reshape(Sin(angles), b, s, 1, 2*h), dtype)
	m[key] = [2]*Node{cos, sin}
	return cos, sin
}

// tables returns graph g's tables (the caller holds the lock), dropping
// the oldest graph's beyond maxRopeGraphs.
func (t *ropeTablesT) tables(g *Graph) map[ropeKey][2]*Node {
	if m, ok := t.byGraph[g]; ok {
		return m
	}
	if t.byGraph == nil {
		t.byGraph = map[*Graph]map[ropeKey][2]*Node{}
	}
	if len(t.order) == maxRopeGraphs {
		delete(t.byGraph, t.order[0])
		t.order = t.order[1:]
	}
	m := map[ropeKey][2]*Node{}
	t.order = append(t.order, g)
	t.byGraph[g] = m
	return m
}

// ApplyPartialRoPE rotates the first rot dims of each head (rotate_half
// convention) and passes the rest through (Phi's partial_rotary_factor);
// rot = D is ApplyRoPE.
//
//	x [B, T, N, D], positions [B, T], invFreq [rot/2] → [B, T, N, D]
func ApplyPartialRoPE(x, positions *Node, invFreq []float64, rot int) *Node {
	d := x.Shape().Dim(3)
	if rot == d {
		return ApplyRoPE(x, positions, invFreq)
	}
	head := Slice(x, AxisRange(), AxisRange(), AxisRange(), AxisRange(0, rot))
	pass := Slice(x, AxisRange(), AxisRange(), AxisRange(), AxisRange(rot, d))
	return Concatenate([]*Node{ApplyRoPE(head, positions, invFreq), pass}, -1)
}
