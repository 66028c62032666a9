package models

import (
	"fmt"
	"math"
	"sort"
)

// bnbQuantizer quantizes float32 values to 4-bit codes as bitsandbytes'
// quantize_4bit does on the CPU (its default torch kernel): per block the
// absmax, the values times the float32 reciprocal of the absmax (the
// ragged last block divided by it), clamped to [-1, 1], then each value's
// code is the bucket of the code book's sorted midpoints it falls in
// (torch.bucketize: a value equal to a midpoint takes the lower bucket).
type bnbQuantizer struct {
	bounds [15]float32 // midpoints of the sorted code book
	order  [16]byte    // order[bucket] is the code whose value is that bucket's
}

// newBNBQuantizer builds the quantizer of quant type "nf4" or "fp4".
func newBNBQuantizer(quantType string) (*bnbQuantizer, error) {
	var code [16]float32
	switch quantType {
	case "nf4":
		code = nf4Code
	case "fp4":
		code = fp4Code
	default:
		return nil, fmt.Errorf("bnb_4bit_quant_type %q: want nf4 or fp4", quantType)
	}
	q := &bnbQuantizer{}
	idx := make([]int, 16)
	for i := range idx {
		idx[i] = i
	}
	// torch.argsort is not stable, but the only tie (fp4's ±0) quantizes
	// to 0 either way; a stable sort picks the code torch picks (checked
	// against the golden).
	sort.SliceStable(idx, func(a, b int) bool { return code[idx[a]] < code[idx[b]] })
	for i, c := range idx {
		q.order[i] = byte(c)
	}
	for i := range q.bounds {
		q.bounds[i] = (code[idx[i]] + code[idx[i+1]]) / 2
	}
	return q, nil
}

// quantize returns x's packed codes (two per byte, the even element in
// the high nibble, an odd count padded with code order[bucket(0)]) and the
// per-block absmax in float32.
func (q *bnbQuantizer) quantize(x []float32, blocksize int) (packed []byte, absmax []float32) {
	n := len(x)
	nblocks := (n + blocksize - 1) / blocksize
	absmax = make([]float32, nblocks)
	packed = make([]byte, (n+1)/2)
	scaled := make([]float32, blocksize)
	for b := range nblocks {
		start, end := b*blocksize, min((b+1)*blocksize, n)
		blk := x[start:end]
		var am float32
		for _, v := range blk {
			am = max(am, float32(math.Abs(float64(v))))
		}
		absmax[b] = q.scaleBlock(scaled[:len(blk)], blk, am, end-start < blocksize)
		for i, v := range scaled[:len(blk)] {
			q.put(packed, start+i, q.code(v))
		}
	}
	if n%2 == 1 {
		q.put(packed, n, q.code(0))
	}
	return packed, absmax
}

// scaleBlock writes blk scaled by its absmax am into out, clamped to
// [-1, 1], and returns the absmax bitsandbytes stores: a full block's as
// is, a ragged last block's clamped to 1e-38 (as torch computes each).
func (q *bnbQuantizer) scaleBlock(out, blk []float32, am float32, ragged bool) float32 {
	const tiny = float32(1e-38)
	den := max(am, tiny)
	if ragged {
		for i, v := range blk {
			out[i] = clamp1(v / den)
		}
		return den
	}
	inv := 1 / den
	for i, v := range blk {
		out[i] = clamp1(v * inv)
	}
	return am
}

// clamp1 clamps v to [-1, 1].
func clamp1(v float32) float32 { return min(max(v, -1), 1) }

// code is the 4-bit code of a scaled value v: the number of midpoints
// strictly below v (torch.bucketize, right=False), through order; NaN is
// above every midpoint, as in torch. A four-step binary search over the
// 15 midpoints (sort.Search's closure cost most of load_in_4bit's time).
func (q *bnbQuantizer) code(v float32) byte {
	if v != v {
		return q.order[15]
	}
	b := &q.bounds
	i := 0
	if v > b[7] {
		i = 8
	}
	if v > b[i+3] {
		i += 4
	}
	if v > b[i+1] {
		i += 2
	}
	if v > b[i] {
		i++
	}
	return q.order[i]
}

// put stores code c as element i of packed.
func (q *bnbQuantizer) put(packed []byte, i int, c byte) {
	if i&1 == 0 {
		packed[i>>1] |= c << 4
	} else {
		packed[i>>1] |= c
	}
}
