package models

import (
	"encoding/binary"
	"fmt"

	"github.com/goeval/goeval/models/safetensors"
)

// The packed layouts, for a linear weight W [out, in] of module m:
//
//	GPTQ  m.qweight I32 [in·bits/32, out]   codes of input rows r·(32/bits)+j in bits j·bits…, low first
//	      m.qzeros  I32 [groups, out·bits/32] zero points of output columns packed the same way;
//	                                          checkpoint_format "gptq" (v1) stores each minus one
//	      m.scales  F16 [groups, out]
//	      m.g_idx   I32 [in]                  the group of each input row (absent: i/group_size)
//	      groups = ⌈in/group_size⌉, or 1 for group_size −1
//	AWQ   m.qweight I32 [in, out/8]           output column 8c+k in nibble (0,4,1,5,2,6,3,7)[k] of word c
//	      m.qzeros  I32 [in/group_size, out/8] packed the same way
//	      m.scales  F16 [in/group_size, out]
//	LLM.int8  m.weight I8 [out, in], m.SCB F32 [out], m.weight_format U8 [] (0: row-major)

// awqNibble is the nibble holding column k of each eight AWQ packs.
var awqNibble = [8]uint{0, 4, 1, 5, 2, 6, 3, 7}

// want is the dtypes (space-separated) and shape a companion must have.
type want struct {
	dtypes string
	shape  []int
}

// intShapes returns W's [out, in], the groups and the companions' wanted
// dtypes and shapes, from m.qweight's shape and q.
func intShapes(q *Quantization, qweight []int) (out, in, groups int, comp map[string]want, err error) {
	if len(qweight) != 2 || qweight[0] <= 0 || qweight[1] <= 0 {
		return 0, 0, 0, nil, fmt.Errorf("qweight shape %v is not a matrix", qweight)
	}
	per := 32 / q.Bits
	scales := "F16 BF16 F32"
	if q.Method == "awq" {
		in, out = qweight[0], qweight[1]*8
		if in%q.GroupSize != 0 {
			return 0, 0, 0, nil, fmt.Errorf("in_features %d is not a multiple of AWQ group_size %d", in, q.GroupSize)
		}
		groups = in / q.GroupSize
		comp = map[string]want{".qzeros": {"I32", []int{groups, out / 8}}, ".scales": {scales, []int{groups, out}}}
		return out, in, groups, comp, nil
	}
	in, out = qweight[0]*per, qweight[1]
	if out%per != 0 {
		return 0, 0, 0, nil, fmt.Errorf("out_features %d does not pack into %d-bit qzeros words", out, q.Bits)
	}
	groups = 1
	if q.GroupSize > 0 {
		groups = ceilDiv(in, q.GroupSize)
	}
	comp = map[string]want{".qzeros": {"I32", []int{groups, out / per}}, ".scales": {scales, []int{groups, out}}}
	return out, in, groups, comp, nil
}

// words reads an I32 tensor as uint32 words.
func words(set *safetensors.Set, name string) ([]uint32, error) {
	return wordsInto(nil, set, name)
}

// wordsInto is words into buf's storage where it is large enough.
func wordsInto(buf []uint32, set *safetensors.Set, name string) ([]uint32, error) {
	b, err := set.Bytes(name)
	if err != nil {
		return nil, err
	}
	w := buf[:0]
	if cap(w) < len(b)/4 {
		w = make([]uint32, len(b)/4)
	}
	w = w[:len(b)/4]
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w, nil
}

// groupScratch is storage parseGroupQuant reuses for the codes and the
// packed words (nil: it allocates them): a load that turns each weight
// into another form leaves no weight-sized garbage behind.
type groupScratch struct {
	codes []uint8
	words []uint32
}

// parseGroupQuant unpacks module m's GPTQ or AWQ tensors (checked at open),
// its Codes and the packed words in sc's storage where sc is not nil.
func parseGroupQuant(set *safetensors.Set, q *Quantization, m string, out, in, groups int, sc *groupScratch) (*GroupQuant, error) {
	g := &GroupQuant{Out: out, In: in, Bits: q.Bits, Zeros: make([]int32, groups*out)}
	var qw []uint32
	var err error
	if sc == nil {
		g.Codes = make([]uint8, in*out)
		qw, err = words(set, m+".qweight")
	} else {
		if cap(sc.codes) < in*out {
			sc.codes = make([]uint8, in*out)
		}
		g.Codes = sc.codes[:in*out]
		qw, err = wordsInto(sc.words, set, m+".qweight")
		sc.words = qw
	}
	if err != nil {
		return nil, err
	}
	qz, err := words(set, m+".qzeros")
	if err != nil {
		return nil, err
	}
	if g.Scales, err = set.Float32(m + ".scales"); err != nil {
		return nil, err
	}
	if q.Method == "awq" {
		unpackAWQ(g.Codes, qw)
		zeros := make([]uint8, groups*out)
		unpackAWQ(zeros, qz)
		for i, z := range zeros {
			g.Zeros[i] = int32(z)
		}
	} else {
		unpackGPTQRows(g.Codes, qw, out, q.Bits)
		unpackGPTQCols(g.Zeros, qz, q.Bits, q.CheckpointFormat == "gptq")
	}
	g.GIdx, err = groupIndex(set, q, m, in, groups)
	return g, err
}

// unpackGPTQRows unpacks qweight [rows, out] into codes [rows·32/bits, out].
func unpackGPTQRows(codes []uint8, qw []uint32, out, bits int) {
	per, mask := 32/bits, uint32(1)<<bits-1
	for k, w := range qw {
		r, o := k/out, k%out
		for j := 0; j < per; j++ {
			codes[(r*per+j)*out+o] = uint8(w >> (bits * j) & mask)
		}
	}
}

// unpackGPTQCols unpacks qzeros [groups, out·bits/32] into zeros [groups,
// out], adding v1's one.
func unpackGPTQCols(zeros []int32, qz []uint32, bits int, v1 bool) {
	per, mask := 32/bits, uint32(1)<<bits-1
	add := int32(0)
	if v1 {
		add = 1
	}
	for k, w := range qz {
		for j := 0; j < per; j++ {
			zeros[k*per+j] = int32(w>>(bits*j)&mask) + add
		}
	}
}

// unpackAWQ unpacks [n, out/8] words into [n, out] 4-bit codes in AWQ's
// column order.
func unpackAWQ(dst []uint8, src []uint32) {
	for k, w := range src {
		base := k * 8 // row k/(out/8), columns 8·(k mod out/8)…: contiguous in dst
		for c := 0; c < 8; c++ {
			dst[base+c] = uint8(w >> (4 * awqNibble[c]) & 0xF)
		}
	}
}

// groupIndex is m.g_idx (GPTQ), checked to name groups that exist, or
// i/group_size.
func groupIndex(set *safetensors.Set, q *Quantization, m string, in, groups int) ([]int32, error) {
	gi := make([]int32, in)
	if _, ok := set.Info(m + ".g_idx"); ok && q.Method == "gptq" {
		w, err := words(set, m+".g_idx")
		if err != nil {
			return nil, err
		}
		for i, v := range w {
			if int32(v) < 0 || int(int32(v)) >= groups {
				return nil, fmt.Errorf("%s.g_idx[%d] is %d, not one of its %d groups", m, i, int32(v), groups)
			}
			gi[i] = int32(v)
		}
		return gi, nil
	}
	size := in
	if q.GroupSize > 0 {
		size = q.GroupSize
	}
	for i := range gi {
		gi[i] = int32(i / size)
	}
	return gi, nil
}
