package models

import (
	"math"
	"sort"
	"sync"
)

// Double quantization (bnb_4bit_use_double_quant, bitsandbytes'
// compress_statistics): quantize_4bit's per-block absmax values, less
// their mean (the offset), are quantized with quantize_blockwise in blocks
// of 256 to 8-bit codes of the signed dynamic map; each block of 256 keeps
// its own float32 absmax (nested_absmax).

// bnbNestedBlocksize is the block size of the absmax values' quantization.
const bnbNestedBlocksize = 256

// dynamicMap is bitsandbytes' create_dynamic_map() (signed, 7 exponent
// bits, 8 bits): for exponent i = 0 … 6, the midpoints of
// torch.linspace(0.1, 1, 2^i+1) in float32 times 10^(i−6), each with
// both signs, plus 0 and 1, sorted. torch's linspace computes each point
// as one fused multiply-add: start + step·i below the halfway index,
// end − step·(steps−1−i) from it (checked against the map bitsandbytes
// stores, TestDynamicMap).
var dynamicMap = func() [256]float32 {
	var data []float32
	for i := range 7 {
		scale := float32(math.Pow(10, float64(i-6)))
		pts := linspaceF32(0.1, 1, 1<<i+1)
		for j := 0; j+1 < len(pts); j++ {
			m := (pts[j] + pts[j+1]) / 2
			data = append(data, scale*m, -(scale * m))
		}
	}
	data = append(data, 0, 1)
	sort.Slice(data, func(a, b int) bool { return data[a] < data[b] })
	var out [256]float32
	copy(out[:], data)
	return out
}()

// linspaceF32 is torch.linspace(start, end, steps) in float32 on the CPU.
func linspaceF32(start, end float32, steps int) []float32 {
	step := (end - start) / float32(steps-1)
	out := make([]float32, steps)
	for i := range out {
		if i < steps/2 {
			out[i] = fma32(step, float32(i), start)
		} else {
			out[i] = fma32(-step, float32(steps-1-i), end)
		}
	}
	return out
}

// fma32 is a·b+c rounded once to float32 (the product of two float32
// values is exact in float64).
func fma32(a, b, c float32) float32 {
	return float32(math.FMA(float64(a), float64(b), float64(c)))
}

// bnbNested is a double-quantized absmax: 8-bit codes, the float32 absmax
// of each block of bnbNestedBlocksize codes, and the offset added back.
type bnbNested struct {
	codes  []byte
	absmax []float32
	offset float32
}

// bnbDoubleQuantize quantizes quantize_4bit's absmax values as
// bitsandbytes' quantize_4bit does with compress_statistics: the offset is
// their float32 mean (torchMeanF32), then quantizeBlockwise of absmax −
// offset in blocks of 256 with the dynamic map.
func bnbDoubleQuantize(absmax []float32) bnbNested {
	offset := torchMeanF32(absmax)
	centred := make([]float32, len(absmax))
	for i, v := range absmax {
		centred[i] = v - offset
	}
	codes, nested := quantizeBlockwise(centred, &dynamicMap, bnbNestedBlocksize)
	return bnbNested{codes: codes, absmax: nested, offset: offset}
}

// quantizeBlockwise is bitsandbytes 0.50.2's CPU quantize_blockwise of x
// with the sorted 256-value code book, as its library computes it (read
// from its machine code): per block the absmax of |x| (a block of zeros
// gets absmax 0 and codes 0), then each value times the float32
// reciprocal of the absmax, clamped to [−1, 1], is looked up in a table of
// 65,536 entries over [−1, 1] (blockwiseLUT): entry ⌊65535·(v+1)/2 + ½⌋,
// the product and the half added in one rounding.
func quantizeBlockwise(x []float32, code *[256]float32, blocksize int) (codes []byte, absmax []float32) {
	lut := blockwiseLUT(code)
	codes = make([]byte, len(x))
	absmax = make([]float32, (len(x)+blocksize-1)/blocksize)
	for b := range absmax {
		blk := x[b*blocksize : min((b+1)*blocksize, len(x))]
		var am float32
		for _, v := range blk {
			am = max(am, abs32(v))
		}
		absmax[b] = am
		if am == 0 {
			continue
		}
		inv := 1 / am
		for i, v := range blk {
			t := (clamp1(v*inv) + 1) * 0.5
			k := uint16(int32(fma32(t, 65535, 0.5)))
			codes[b*blocksize+i] = lut[k]
		}
	}
	return codes, absmax
}

// blockwiseLUT is bitsandbytes' quantize table of a code book: entry k
// is the number of midpoints (code[i]+code[i+1])·½ strictly below the grid
// point 2k/65535 − 1 (float32 arithmetic), so a value takes the code
// nearest its grid point, not always the code nearest the value itself.
func blockwiseLUT(code *[256]float32) *[65536]byte {
	if code == &dynamicMap {
		return dynamicLUT()
	}
	return buildBlockwiseLUT(code)
}

var dynamicLUT = sync.OnceValue(func() *[65536]byte { return buildBlockwiseLUT(&dynamicMap) })

func buildBlockwiseLUT(code *[256]float32) *[65536]byte {
	var mids [255]float32
	for i := range mids {
		mids[i] = (code[i] + code[i+1]) * 0.5
	}
	lut := new([65536]byte)
	idx := 0
	for k := range lut {
		x := float32(2*float32(k))/65535 - 1
		for idx < 255 && x > mids[idx] {
			idx++
		}
		lut[k] = byte(idx)
	}
	return lut
}

func abs32(v float32) float32 { return float32(math.Abs(float64(v))) }
