package models

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/models/nn"
	"github.com/goeval/goeval/models/safetensors"
)

// LLM.int8 forward: Load keeps a bitsandbytes 8-bit weight as its int8
// codes (variable "weight", the integers in the weight dtype: exact in
// float32 and bfloat16), its row scales beside it (variable "SCB" [out],
// float32) and llm_int8_threshold on the root scope; linear then computes
// nn.Int8Linear for it, as transformers' Linear8bitLt does (activations
// quantized to int8 per row, outlier columns split off). With
// LoadOptions.Dequantize8Bit, or a merged adapter (which needs the
// dense weight), the weights are dequantized and the model is dense.

// int8ThresholdParam is the root context parameter holding
// llm_int8_threshold for the LLM.int8 weights.
const int8ThresholdParam = "goeval_int8_threshold"

// int8IntegerParam is the root context parameter saying that the LLM.int8
// products take their integer form (nn.Int8Input.Integer): on the pure-Go
// backend where it runs them on int8 kernels (gocpu.HasInt8Dot).
const int8IntegerParam = "goeval_int8_integer"

// int8ScaleVar is the variable beside an LLM.int8 weight holding its SCB.
const int8ScaleVar = "SCB"

// int8DefaultThreshold is BitsAndBytesConfig's llm_int8_threshold default.
const int8DefaultThreshold = 6.0

// Int8Threshold is q's llm_int8_threshold (6.0 when absent).
func (q *Quantization) Int8Threshold() float64 {
	if q == nil || q.LLMInt8Threshold == nil {
		return int8DefaultThreshold
	}
	return *q.LLMInt8Threshold
}

// int8Set presents the LLM.int8 weights of a checkpoint (pre-quantized:
// intQuantSet; quantized at load: load_in_8bit) as their codes, exact
// integers (codes), or dequantized as int8_vectorwise_dequant does.
type int8Set struct {
	Tensors
	rows      map[string]*RowInt8 // by weight name; nil values are read with row
	row       func(name string) (*RowInt8, error)
	threshold float64
	codes     bool
}

// Renamed is the renaming of the set it wraps (renamedAs).
func (s *int8Set) Renamed(name string) (string, bool) { return renamedAs(s.Tensors, name) }

// int8Forward returns set as Load stores it: an 8-bit checkpoint's set
// as its codes unless dequantize or merged, else set itself.
func int8Forward(set Tensors, dequantize, merged bool) Tensors {
	if s, ok := set.(*int8Set); ok {
		s.codes = !dequantize && !merged
		return s
	}
	s, ok := set.(*intQuantSet)
	if !ok || s.q.Method != "bitsandbytes" || dequantize || merged {
		return set
	}
	rows := map[string]*RowInt8{}
	for _, n := range s.Quantized() {
		rows[n] = nil
	}
	return &int8Set{Tensors: s, rows: rows, row: s.RowInt8, threshold: s.q.Int8Threshold(), codes: true}
}

// int8CodesBF16 reports whether Load stores tensor name of s, an LLM.int8
// weight kept as its codes, as bfloat16 rather than float32: on the
// pure-Go backend, whose products read a bf16 weight widened in registers
// (exact: |code| ≤ 127), so the codes take half the memory and half the
// bytes per product. XLA's products need both operands in one dtype.
func int8CodesBF16(backend backends.Backend, s Tensors, name string) bool {
	i8, ok := s.(*int8Set)
	if !ok || !i8.codes || backend.String() != gocpu.Name {
		return false
	}
	_, q := i8.rows[name]
	return q
}

// rowInt8 is LLM.int8 weight name (ok false for another tensor).
func (s *int8Set) rowInt8(name string) (r *RowInt8, ok bool, err error) {
	r, ok = s.rows[name]
	if !ok || r != nil {
		return r, ok, nil
	}
	r, err = s.row(name)
	return r, true, err
}

// Quantized lists the LLM.int8 weights, sorted.
func (s *int8Set) Quantized() []string {
	out := make([]string, 0, len(s.rows))
	for n := range s.rows {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Info describes tensor name; an LLM.int8 weight as INT8 [out, in].
func (s *int8Set) Info(name string) (safetensors.TensorInfo, bool) {
	info, ok := s.Tensors.Info(name)
	if _, q := s.rows[name]; q && ok {
		info.DType = "INT8"
	}
	return info, ok
}

// Float32 returns tensor name as float32; an LLM.int8 weight as its
// codes or dequantized.
func (s *int8Set) Float32(name string) ([]float32, error) {
	r, ok, err := s.rowInt8(name)
	if !ok || err != nil {
		if !ok {
			return s.Tensors.Float32(name)
		}
		return nil, err
	}
	out := make([]float32, len(r.Codes))
	if !s.codes {
		r.Dequantize(out, nil)
		return out, nil
	}
	for i, c := range r.Codes {
		out[i] = float32(c)
	}
	return out, nil
}

// BF16Into writes tensor name as bfloat16 bits; an LLM.int8 weight's
// codes are exact (|code| ≤ 127 has 7 significant bits).
func (s *int8Set) BF16Into(name string, dst []uint16, done func(raw []byte)) error {
	r, ok, err := s.rowInt8(name)
	if !ok || err != nil {
		if !ok {
			return s.Tensors.BF16Into(name, dst, done)
		}
		return err
	}
	if len(dst) != len(r.Codes) {
		return fmt.Errorf("%s: tensor %q holds %d values, %d expected", s.Source(), name, len(r.Codes), len(dst))
	}
	if !s.codes {
		r.Dequantize(nil, dst)
		return nil
	}
	for i, c := range r.Codes {
		dst[i] = safetensors.Float32ToBF16(float32(c))
	}
	return nil
}

// storeScales stores each LLM.int8 weight's SCB beside it in ctx and the
// threshold on the root scope (nothing when the weights are dequantized).
func (s *int8Set) storeScales(ctx *context.Context, backend backends.Backend) error {
	if !s.codes {
		return nil
	}
	ctx.InAbsPath("/").SetParam(int8ThresholdParam, s.threshold)
	ctx.InAbsPath("/").SetParam(int8IntegerParam, backend.String() == gocpu.Name && gocpu.HasInt8Dot())
	for _, name := range s.Quantized() {
		r, _, err := s.rowInt8(name)
		if err == nil {
			var t *tensors.Tensor
			if t, err = deviceTensor(backend, r.SCB, dtypes.Float32, []int{r.Out}); err == nil {
				scope, _ := VariablePath(name)
				ctx.InAbsPath(scope).VariableWithValue(int8ScaleVar, t).Trainable = false
			}
		}
		if err != nil {
			return fmt.Errorf("load the row scales (SCB) of %s: %w", name, err)
		}
	}
	return nil
}

// int8Linear is nn.Int8Linear for weight name when Load stored it as
// LLM.int8 codes, else nil. The input's quantization is shared by every
// such product of the same x in the graph (int8Input).
//
//	x [..., in] → [..., out]
func int8Linear(ctx *context.Context, x *Node, name string, bias *Node) *Node {
	scope, _ := VariablePath(name)
	v := ctx.GetVariableByScopeAndName(scope, int8ScaleVar)
	if v == nil {
		return nil
	}
	g := x.Graph()
	return int8Input(ctx, x).Linear(Param(ctx, g, name), v.ValueGraph(g), bias)
}

// int8Input is x quantized for LLM.int8 products, once per x and graph:
// kept as a graph parameter of the root scope named by x's node id.
func int8Input(ctx *context.Context, x *Node) *nn.Int8Input {
	g, root := x.Graph(), ctx.InAbsPath("/")
	key := fmt.Sprintf("goeval_int8_input_%d", x.Id())
	if q := context.GetGraphParamOr[*nn.Int8Input](root, g, key, nil); q != nil {
		return q
	}
	threshold := context.GetParamOr(root, int8ThresholdParam, int8DefaultThreshold)
	var valid *Node
	if x.Rank() == 3 {
		valid = context.GetGraphParamOr[*Node](root, g, int8RowsParam, nil)
	}
	q := nn.QuantizeInt8Input(x, threshold, valid)
	q.Integer = context.GetParamOr(root, int8IntegerParam, false)
	root.SetGraphParam(g, key, q)
	return q
}

// int8RowsParam is the graph parameter (root scope) holding the real
// (non-padding) tokens of unpacked rows, [B, T] bool, for the LLM.int8
// outlier columns (nn.Int8Linear's valid).
const int8RowsParam = "goeval_int8_rows"

// setInt8Rows records on g that row b of tokens [B, T] holds rowLen[b]
// real tokens, the rest padding (nothing when rowLen is nil).
func setInt8Rows(ctx *context.Context, tokens, rowLen *Node) {
	if rowLen == nil {
		return
	}
	b, t := tokens.Shape().Dim(0), tokens.Shape().Dim(1)
	pos := Iota(tokens.Graph(), shapes.Make(dtypes.Int32, b, t), 1)
	ctx.InAbsPath("/").SetGraphParam(tokens.Graph(), int8RowsParam, LessThan(pos, BroadcastToDims(Reshape(rowLen, b, 1), b, t)))
}

// Int8SplitsOutliers reports whether Load computes cfg's checkpoint under
// o as LLM.int8 with a threshold above 0: each forward's outlier columns
// then depend on every row of its sequence, so a request's scores are
// bitsandbytes' only when its tokens run as one unpacked row, alone.
func Int8SplitsOutliers(cfg *Config, o LoadOptions) bool {
	c := Int8Compute(cfg, o)
	return c != "" && c != "dequantized" && !strings.HasSuffix(c, " 0")
}

// Int8Compute describes how Load computes the bitsandbytes 8-bit weights
// of a checkpoint with config cfg under o: "" when it has none (neither
// an 8-bit quantization_config nor o.LoadIn8Bit), else "LLM.int8,
// llm_int8_threshold T" or "dequantized" (o.Dequantize8Bit, or one merged
// adapter). Engines hash it into their identity: the two give different
// scores.
func Int8Compute(cfg *Config, o LoadOptions) string {
	q := o.LoadIn8Bit
	if q == nil && cfg != nil && cfg.Quantization != nil && cfg.Quantization.Method == "bitsandbytes" && cfg.Quantization.LoadIn8Bit {
		q = cfg.Quantization
	}
	if q == nil {
		return ""
	}
	merged := len(o.Adapters) == 1 && (o.AdapterMode == "" || o.AdapterMode == AdapterMerged)
	if o.Dequantize8Bit || merged {
		return "dequantized"
	}
	return fmt.Sprintf("LLM.int8, llm_int8_threshold %g", q.Int8Threshold())
}
