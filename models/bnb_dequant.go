package models

import (
	"github.com/goeval/goeval/models/safetensors"
)

// nf4Code is bitsandbytes' NF4 code book (quantiles of N(0, 1) scaled to
// [-1, 1]), indexed by the 4-bit code, as float32.
var nf4Code = [16]float32{
	-1, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
	-0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0,
	0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
	0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1,
}

// fp4Code is bitsandbytes' FP4 code book (1 sign, 2 exponent and 1
// mantissa bit, exponent bias 2, scaled by 1/12 to [-1, 1]) indexed by the
// 4-bit code: each value is a float32 quotient, rounded once, as
// bitsandbytes divides its table. Code 8 is +0, as in its AVX-512 CPU
// kernel's table and its flat torch reference (its scalar kernel has −0,
// which multiplies to the same value but other bits).
var fp4Code = func() [16]float32 {
	mag := [8]float32{0, 0.0625, 8, 12, 4, 6, 2, 3}
	var c [16]float32
	for i, m := range mag {
		c[i] = m / 12
		if i > 0 {
			c[i+8] = -(m / 12)
		}
	}
	return c
}()

// bnbMaxBlock is the largest block size (bnbBlocksizes).
const bnbMaxBlock = 4096

// dequantize writes weight w's values into f32 (float32) or bf16
// (bfloat16 bits, each the float32 value rounded to nearest even), one of
// them non-nil. Each value is code[q]·absmax[block] in float32, rounded
// once, as bitsandbytes' dequantize_4bit computes it; with double
// quantization a block's absmax is first nested_quant_map[a]·
// nested_absmax[block/nested_blocksize], rounded, plus nested_offset,
// rounded (dequantize_blockwise, then the offset added in float32).
func (b *bnbSet) dequantize(w *bnbWeight, f32 []float32, bf16 []uint16) error {
	packed, err := b.Bytes(w.name)
	if err != nil {
		return err
	}
	absmax, err := b.absmax(w)
	if err != nil {
		return err
	}
	code := &nf4Code
	if w.state.QuantType == "fp4" {
		code = &fp4Code
	}
	var tmp [bnbMaxBlock]float32
	bs := w.state.Blocksize
	for blk, start := 0, 0; start < w.n; blk, start = blk+1, start+bs {
		end := min(start+bs, w.n)
		out := tmp[:end-start]
		if f32 != nil {
			out = f32[start:end]
		}
		decodeBlock(out, packed, start, code, absmax[blk])
		if bf16 != nil {
			for i, v := range out {
				bf16[start+i] = safetensors.Float32ToBF16(v)
			}
		}
	}
	return nil
}

// decodeBlock writes the values start … start+len(out)-1 of a packed
// 4-bit tensor (element i in byte i/2, the high nibble when i is even)
// scaled by scale.
func decodeBlock(out []float32, packed []byte, start int, code *[16]float32, scale float32) {
	i := 0
	if start&1 == 1 && len(out) > 0 { // an odd first value: the low nibble
		out[0] = float32(code[packed[start>>1]&0xF] * scale)
		i = 1
	}
	for ; i+1 < len(out); i += 2 {
		q := packed[(start+i)>>1]
		out[i] = float32(code[q>>4] * scale)
		out[i+1] = float32(code[q&0xF] * scale)
	}
	if i < len(out) { // an even last value: the high nibble
		out[i] = float32(code[packed[(start+i)>>1]>>4] * scale)
	}
}

// absmax is w's per-block scales in float32: the stored ones, or with
// double quantization their 8-bit codes dequantized.
func (b *bnbSet) absmax(w *bnbWeight) ([]float32, error) {
	if w.state.NestedOffset == nil {
		return b.rawFloat32(w.name + ".absmax")
	}
	codes, err := b.Bytes(w.name + ".absmax")
	if err != nil {
		return nil, err
	}
	nestedMap, err := b.rawFloat32(w.name + ".nested_quant_map")
	if err != nil {
		return nil, err
	}
	nestedAbsmax, err := b.rawFloat32(w.name + ".nested_absmax")
	if err != nil {
		return nil, err
	}
	offset := float32(*w.state.NestedOffset)
	out := make([]float32, len(codes))
	for i, c := range codes {
		p := float32(nestedMap[c] * nestedAbsmax[i/w.state.NestedBlocksize])
		out[i] = float32(p + offset)
	}
	return out, nil
}
