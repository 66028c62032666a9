package safetensors

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/par"
	"github.com/x448/float16"
)

// bf16Chunk is how many values BF16Into converts between calls of its
// done function (4 MiB of F32 input); chunks run on all processors.
const bf16Chunk = 1 << 20

// BF16Into writes tensor name into dst as bfloat16 bit patterns: BF16
// values copied, F32 and F16 ones rounded to the nearest bfloat16 (ties
// to even, as torch's conversion), straight from the mapping with no
// float32 copy. dst must hold exactly the tensor's values. After each
// chunk it calls done (if not nil, from the goroutine that converted it:
// chunks run in parallel) with the mapped bytes it has read, so that the
// caller can drop them from memory.
func (s *Set) BF16Into(name string, dst []uint16, done func(raw []byte)) error {
	t, ok := s.infos[name]
	if !ok {
		return errs.BadInputf("%s: no tensor %q", s.source, name)
	}
	size := dtypeSizes[t.DType]
	if t.DType != "BF16" && t.DType != "F32" && t.DType != "F16" {
		return errs.BadInputf("%s: tensor %q has dtype %s; only F32, F16 and BF16 convert to bfloat16", t.File, name, t.DType)
	}
	b := s.maps[t.File][t.Offset : t.Offset+t.Length]
	if n := int(t.Length / size); n != len(dst) {
		return errs.BadInputf("%s: tensor %q holds %d values, %d expected", t.File, name, n, len(dst))
	}
	chunks := (len(dst) + bf16Chunk - 1) / bf16Chunk
	par.For(chunks, 1, func(c0, c1 int) {
		for c := c0; c < c1; c++ {
			i0, i1 := c*bf16Chunk, min((c+1)*bf16Chunk, len(dst))
			raw := b[int64(i0)*size : int64(i1)*size]
			toBF16(dst[i0:i1], raw, t.DType)
			if done != nil {
				done(raw)
			}
		}
	})
	return nil
}

// toBF16 writes the values of raw, of safetensors dtype BF16, F32 or
// F16, into d as bfloat16 bits.
func toBF16(d []uint16, raw []byte, dtype string) {
	switch dtype {
	case "BF16":
		if nativeLittleEndian && len(d) > 0 && uintptr(unsafe.Pointer(&raw[0]))%2 == 0 {
			copy(d, unsafe.Slice((*uint16)(unsafe.Pointer(&raw[0])), len(d)))
			return
		}
		for i := range d {
			d[i] = binary.LittleEndian.Uint16(raw[2*i:])
		}
	case "F32":
		for i := range d {
			d[i] = Float32ToBF16(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])))
		}
	case "F16":
		for i := range d {
			d[i] = Float32ToBF16(float16.Frombits(binary.LittleEndian.Uint16(raw[2*i:])).Float32())
		}
	}
}
