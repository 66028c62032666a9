package models

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/safetensors"
)

// A bitsandbytes 4-bit checkpoint, as transformers' save_pretrained writes
// it (bitsandbytes' Linear4bit._save_to_state_dict and QuantState.as_dict
// with packed=True), stores each quantized linear weight W of n values as:
//
//	W                     U8 [(n+1)/2, 1]  two 4-bit codes per byte, element 2i in the high nibble
//	W.absmax              F32 [blocks]     per block of blocksize values (flat, row-major)
//	                      U8  [blocks]     with double quantization: 8-bit codes of absmax − offset
//	W.quant_map           F32 [16]         the 4-bit code book (bitsandbytes dequantizes with its own)
//	W.nested_absmax       F32 [⌈blocks/nested_blocksize⌉]  double quantization only
//	W.nested_quant_map    F32 [256]        the 8-bit code book of the absmax codes
//	W.quant_state.bitsandbytes__nf4|fp4   U8 [k]  JSON: quant_type, blocksize, dtype, shape,
//	                                       and nested_blocksize, nested_dtype, nested_offset
//
// bnbSet reads such a checkpoint as the dense one it came from.

// bnbAux are the suffixes of a quantized weight's companion tensors.
var bnbAux = []string{".absmax", ".quant_map", ".nested_absmax", ".nested_quant_map"}

// bnbStatePrefix starts the name suffix of the packed JSON state.
const bnbStatePrefix = ".quant_state.bitsandbytes__"

// bnbState is the packed JSON quant state of one weight.
type bnbState struct {
	QuantType       string   `json:"quant_type"`
	Blocksize       int      `json:"blocksize"`
	DType           string   `json:"dtype"`
	Shape           []int    `json:"shape"`
	NestedBlocksize int      `json:"nested_blocksize"`
	NestedDType     string   `json:"nested_dtype"`
	NestedOffset    *float64 `json:"nested_offset"`
}

// bnbWeight is one quantized weight of a bnbSet.
type bnbWeight struct {
	name  string
	state bnbState
	n     int                    // values: the product of state.Shape
	info  safetensors.TensorInfo // the dense tensor's description (DType NF4 or FP4)
}

// bnbSet is a safetensors.Set with each 4-bit weight in place of its
// packed bytes and companions (Tensors): Info gives the dense shape (DType
// "NF4" or "FP4", Length the bytes of the weight and its companions),
// Float32 and BF16Into dequantize as bitsandbytes' dequantize_4bit does.
type bnbSet struct {
	*safetensors.Set
	weights map[string]*bnbWeight
	hidden  map[string]bool // companions, absent from Names
	mem     memTensors      // quantized at load: the stored tensors (bnb_mem.go)
}

// newBnbSet finds every quantized weight of set (a weight with a
// quant_state tensor) and checks its state and companions against q.
func newBnbSet(set *safetensors.Set, q *Quantization) (*bnbSet, error) {
	b := &bnbSet{Set: set, weights: map[string]*bnbWeight{}, hidden: map[string]bool{}}
	for _, name := range set.Names() {
		i := strings.Index(name, bnbStatePrefix)
		if i < 0 {
			continue
		}
		w, err := b.readWeight(name[:i], name, q)
		if err != nil {
			return nil, err
		}
		b.weights[w.name] = w
	}
	if len(b.weights) == 0 {
		return nil, errs.BadInputf("%s: config.json has a bitsandbytes quantization_config but no tensor has a %s* quant state; the checkpoint is not a bitsandbytes 4-bit one", set.Source(), bnbStatePrefix)
	}
	return b, nil
}

// readWeight parses weight name's JSON state (tensor stateName), checks
// it and its companions, and marks the companions hidden.
func (b *bnbSet) readWeight(name, stateName string, q *Quantization) (*bnbWeight, error) {
	info, ok := b.rawInfo(name)
	if !ok {
		return nil, errs.BadInputf("%s: %s has no weight %s", b.Source(), stateName, name)
	}
	raw, err := b.Bytes(stateName)
	if err != nil {
		return nil, err
	}
	w := &bnbWeight{name: name}
	if err := json.Unmarshal(raw, &w.state); err != nil {
		return nil, errs.BadInputf("%s: %s is not a bitsandbytes quant state (JSON): %v", info.File, stateName, err)
	}
	if err := w.check(stateName, q); err != nil {
		return nil, errs.BadInputf("%s: %s: %v", info.File, name, err)
	}
	if err := b.checkTensors(w, info); err != nil {
		return nil, errs.BadInputf("%s: %s: %v", info.File, name, err)
	}
	b.hidden[stateName] = true
	length := info.Length
	for _, suf := range bnbAux {
		if a, ok := b.rawInfo(name + suf); ok {
			b.hidden[name+suf] = true
			length += a.Length
		}
	}
	st, _ := b.rawInfo(stateName)
	w.info = safetensors.TensorInfo{Name: name, DType: strings.ToUpper(w.state.QuantType), Shape: w.state.Shape,
		File: info.File, Offset: info.Offset, Length: length + st.Length}
	return w, nil
}

// bnbBlocksizes are the block sizes bitsandbytes quantizes 4-bit weights in.
var bnbBlocksizes = map[int]bool{32: true, 64: true, 128: true, 256: true, 512: true, 1024: true, 2048: true, 4096: true}

// check validates the JSON state against the tensor name and q.
func (w *bnbWeight) check(stateName string, q *Quantization) error {
	s := &w.state
	if suffix := stateName[len(w.name)+len(bnbStatePrefix):]; suffix != s.QuantType {
		return fmt.Errorf("quant state %s holds quant_type %q", stateName, s.QuantType)
	}
	if s.QuantType != q.QuantType {
		return fmt.Errorf("quant_type %s, config.json's bnb_4bit_quant_type is %s", s.QuantType, q.QuantType)
	}
	if !bnbBlocksizes[s.Blocksize] {
		return fmt.Errorf("blocksize %d is not one bitsandbytes uses (32 to 4096, powers of two)", s.Blocksize)
	}
	if s.DType != "float32" && s.DType != "bfloat16" && s.DType != "float16" {
		return fmt.Errorf("quant state dtype %q is not float32, bfloat16 or float16", s.DType)
	}
	w.n = 1
	for _, d := range s.Shape {
		if d <= 0 || w.n > (1<<40)/d {
			return fmt.Errorf("quant state shape %v is not a shape of positive dimensions", s.Shape)
		}
		w.n *= d
	}
	if len(s.Shape) == 0 {
		return fmt.Errorf("quant state has no shape")
	}
	if s.NestedOffset != nil && (s.NestedBlocksize <= 0 || s.NestedDType != "float32") {
		return fmt.Errorf("double quantization with nested_blocksize %d and nested_dtype %q (want a positive block size, float32)", s.NestedBlocksize, s.NestedDType)
	}
	return nil
}

// checkTensors checks the packed weight and its companions' sizes.
func (b *bnbSet) checkTensors(w *bnbWeight, packed safetensors.TensorInfo) error {
	if packed.DType != "U8" || packed.Length != int64((w.n+1)/2) {
		return fmt.Errorf("packed weight is %s %v, want U8 of %d bytes for shape %v", packed.DType, packed.Shape, (w.n+1)/2, w.state.Shape)
	}
	blocks := ceilDiv(w.n, w.state.Blocksize)
	nested := w.state.NestedOffset != nil
	want := map[string]bnbCompanion{".absmax": {"F32 F16 BF16", blocks}, ".quant_map": {"F32", 16}}
	if nested {
		want[".absmax"] = bnbCompanion{"U8", blocks}
		want[".nested_absmax"] = bnbCompanion{"F32", ceilDiv(blocks, w.state.NestedBlocksize)}
		want[".nested_quant_map"] = bnbCompanion{"F32", 256}
	}
	sufs := make([]string, 0, len(want))
	for suf := range want {
		sufs = append(sufs, suf)
	}
	sort.Strings(sufs)
	for _, suf := range sufs {
		info, ok := b.rawInfo(w.name + suf)
		if !ok {
			return fmt.Errorf("missing tensor %s%s", w.name, suf)
		}
		if !strings.Contains(want[suf].dtypes, info.DType) || info.NumElements() != int64(want[suf].n) {
			return fmt.Errorf("tensor %s%s is %s %v, want %d values of %s", w.name, suf, info.DType, info.Shape, want[suf].n, want[suf].dtypes)
		}
	}
	if _, ok := b.rawInfo(w.name + ".nested_absmax"); ok && !nested {
		return fmt.Errorf("has nested_absmax but its quant state no nested_offset")
	}
	return nil
}

// bnbCompanion is the dtypes (space-separated) and size a companion
// tensor must have.
type bnbCompanion struct {
	dtypes string
	n      int
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// Names lists the tensors with each quantized weight once, its companions
// left out.
func (b *bnbSet) Names() []string {
	var out []string
	for _, n := range b.Set.Names() {
		if !b.hidden[n] {
			out = append(out, n)
		}
	}
	return out
}

// Info describes tensor name; a quantized weight by its dense shape.
func (b *bnbSet) Info(name string) (safetensors.TensorInfo, bool) {
	if w, ok := b.weights[name]; ok {
		return w.info, true
	}
	if b.hidden[name] {
		return safetensors.TensorInfo{}, false
	}
	return b.Set.Info(name)
}

// Float32 returns tensor name as float32; a quantized weight dequantized
// into a new slice.
func (b *bnbSet) Float32(name string) ([]float32, error) {
	w, ok := b.weights[name]
	if !ok {
		return b.Set.Float32(name)
	}
	out := make([]float32, w.n)
	if err := b.dequantize(w, out, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// BF16Into writes tensor name as bfloat16 bits; a quantized weight is
// dequantized and rounded block by block, with no float32 copy.
func (b *bnbSet) BF16Into(name string, dst []uint16, done func(raw []byte)) error {
	w, ok := b.weights[name]
	if !ok {
		return b.Set.BF16Into(name, dst, done)
	}
	if len(dst) != w.n {
		return errs.BadInputf("%s: tensor %q holds %d values, %d expected", w.info.File, name, w.n, len(dst))
	}
	return b.dequantize(w, nil, dst)
}

// Quantized lists the quantized weights, sorted.
func (b *bnbSet) Quantized() []string {
	out := make([]string, 0, len(b.weights))
	for n := range b.weights {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
