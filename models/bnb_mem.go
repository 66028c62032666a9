package models

import (
	"encoding/binary"
	"math"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/safetensors"
)

// A bnbSet reads each quantized weight's packed codes and companions
// (bnb.go) through raw*: from the checkpoint's files, or, for a float
// checkpoint quantized at load (--load-in-4bit, bnb_loadin4bit.go), from
// mem, which holds the tensors bitsandbytes would have saved for it, in
// the same names, dtypes and shapes. Everything past raw* (the checks,
// dequantization, LoRA, inspect) sees one form either way.

// memTensors are in-memory tensors by name, in the safetensors form
// (little-endian bytes).
type memTensors map[string]safetensors.Tensor

// rawInfo describes tensor name as stored: mem's, else the file's.
func (b *bnbSet) rawInfo(name string) (safetensors.TensorInfo, bool) {
	if t, ok := b.mem[name]; ok {
		return safetensors.TensorInfo{Name: name, DType: t.DType, Shape: t.Shape, File: b.Set.Source(),
			Length: int64(len(t.Data))}, true
	}
	return b.Set.Info(name)
}

// Bytes returns the stored bytes of tensor name: a quantized weight's
// packed codes, a companion's bytes (mem's, else the file's).
func (b *bnbSet) Bytes(name string) ([]byte, error) {
	if t, ok := b.mem[name]; ok {
		return t.Data, nil
	}
	return b.Set.Bytes(name)
}

// rawFloat32 returns stored tensor name (a float companion) as float32.
func (b *bnbSet) rawFloat32(name string) ([]float32, error) {
	t, ok := b.mem[name]
	if !ok {
		return b.Set.Float32(name)
	}
	if t.DType != "F32" {
		return nil, errs.BadInputf("%s: in-memory tensor %q is %s, not F32", b.Set.Source(), name, t.DType)
	}
	out := make([]float32, len(t.Data)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.Data[4*i:]))
	}
	return out, nil
}

// f32Bytes is v as little-endian float32 bytes.
func f32Bytes(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}
