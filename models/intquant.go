package models

import (
	"github.com/goeval/goeval/models/safetensors"
)

// GroupQuant is one GPTQ or AWQ linear weight W [Out, In] as its
// checkpoint holds it, unpacked: integer codes with a scale and zero point
// per (group, output), the group of each input row in GIdx. W[o, i] =
// Scales[g·Out+o]·(Codes[i·Out+o] − Zeros[g·Out+o]) with g = GIdx[i]. It
// is the one parsed form of both formats (their packings differ, the
// arithmetic does not): dequantized at load, or, 4-bit on a backend that
// holds packed 4-bit weights, turned into a Q4Weight (Q4, intquant_q4.go).
type GroupQuant struct {
	Out, In int
	// Bits per code: 4 or 8.
	Bits int
	// Codes [In, Out]: input-major, as both formats pack them.
	Codes []uint8
	// Zeros [Groups, Out]: the zero points, GPTQ v1's stored-minus-one
	// already undone (so 0 … 2^Bits).
	Zeros []int32
	// Scales [Groups, Out], widened from the checkpoint's float16.
	Scales []float32
	// GIdx [In]: the group of each input row (i/group_size unless
	// desc_act shuffled it).
	GIdx []int32
}

// Groups is the number of (scale, zero) rows.
func (g *GroupQuant) Groups() int { return len(g.Scales) / g.Out }

// Dequantize writes W [Out, In] row-major into f32, or as bfloat16 bits
// (rounded to nearest even) into bf16; one of them is non-nil. Each value
// is the float32 product of the scale and the integer difference, rounded
// once; with float16 scales (as GPTQ and AWQ save them) it is exact (an
// 11-bit significand times an integer below 2^9), so a kernel multiplying
// in float16 or float32, in either order, gives the same value.
func (g *GroupQuant) Dequantize(f32 []float32, bf16 []uint16) {
	row := make([]float32, g.In)
	for o := 0; o < g.Out; o++ {
		for i := 0; i < g.In; i++ {
			k := int(g.GIdx[i])*g.Out + o
			row[i] = g.Scales[k] * float32(int32(g.Codes[i*g.Out+o])-g.Zeros[k])
		}
		emitRow(row, o, f32, bf16)
	}
}

// RowInt8 is one bitsandbytes LLM.int8 weight W [Out, In]: int8 codes
// with one absolute-maximum scale per output row (SCB). W[o, i] =
// Codes[o·In+i]·SCB[o]/127, computed as bitsandbytes' int8_vectorwise_
// dequant does: (code·SCB) rounded to float32, times float32(1/127),
// rounded.
type RowInt8 struct {
	Out, In int
	// Codes [Out, In].
	Codes []int8
	// SCB [Out].
	SCB []float32
}

// int8Recip is bitsandbytes' 7.874015718698502e-3 (1/127) as float32.
const int8Recip = float32(7.874015718698502e-3)

// Dequantize writes W [Out, In] into f32, or as bfloat16 bits into bf16.
func (r *RowInt8) Dequantize(f32 []float32, bf16 []uint16) {
	row := make([]float32, r.In)
	for o := 0; o < r.Out; o++ {
		s := r.SCB[o]
		for i, c := range r.Codes[o*r.In : (o+1)*r.In] {
			p := float32(float32(c) * s)
			row[i] = float32(p * int8Recip)
		}
		emitRow(row, o, f32, bf16)
	}
}

// emitRow copies row o of a [·, len(row)] matrix into f32 or bf16.
func emitRow(row []float32, o int, f32 []float32, bf16 []uint16) {
	n := len(row)
	if f32 != nil {
		copy(f32[o*n:(o+1)*n], row)
		return
	}
	for i, v := range row {
		bf16[o*n+i] = safetensors.Float32ToBF16(v)
	}
}
