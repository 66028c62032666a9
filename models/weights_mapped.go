package models

import (
	"encoding/binary"
	"unsafe"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/dtypes/bfloat16"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/goeval/goeval/models/safetensors"
)

// Gathered weights left in the file. The embedding table of a model whose
// LM head is its own weight is only gathered from: a forward pass reads
// the rows of its tokens. Held in bfloat16 from a BF16 checkpoint, its
// values are the file's bytes, so a backend that can use storage it is
// given (goeval's pure-Go one) reads them from a private mapping of the
// file: only the rows read become resident (at Llama-3.1-8B's shape the
// table is 1 GB, of which a few MB are read), and nothing is copied at
// load. Private (copy-on-write) so that anything that writes the buffer
// (a backend's layout change, a caller's BufferData) gets its own pages,
// never the file's.

// bf16StorageBackend holds a bfloat16 buffer in storage it is given
// (gocpu.Backend.BufferFromBF16Storage).
type bf16StorageBackend interface {
	BufferFromBF16Storage(data []bfloat16.BFloat16, shape shapes.Shape, release func()) (backends.Buffer, error)
}

// privateMapper maps one tensor's bytes copy-on-write
// (safetensors.Set.MapPrivate).
type privateMapper interface {
	MapPrivate(name string) ([]byte, bool, error)
}

// gatheredOnly reports whether the graphs only gather from checkpoint
// tensor name: the embedding when the LM head is not tied to it.
func gatheredOnly(cfg *Config, name string) bool {
	return name == embedName && !cfg.TieWordEmbeddings
}

// loadMappedBF16 loads a bfloat16 matrix that is only gathered from as a
// buffer over a private mapping of its bytes; ok is false (nothing done)
// where that cannot be: a transform or transposed layout, a tensor not
// BF16 in the file (or at an odd offset), a big-endian host, a backend or
// tensor source that cannot.
func loadMappedBF16(backend backends.Backend, s Tensors, name string, info safetensors.TensorInfo, tf WeightTransform, transpose bool) (t *tensors.Tensor, ok bool, err error) {
	sb, canHold := backend.(bf16StorageBackend)
	pm, canMap := s.(privateMapper)
	if !canHold || !canMap || tf != nil || transpose || info.DType != "BF16" || info.Offset%2 != 0 || !littleEndian() {
		return nil, false, nil
	}
	raw, ok, err := pm.MapPrivate(name)
	if err != nil || !ok {
		return nil, false, err
	}
	data := unsafe.Slice((*bfloat16.BFloat16)(unsafe.Pointer(&raw[0])), len(raw)/2)
	buf, err := sb.BufferFromBF16Storage(data, shapes.Make(dtypes.BFloat16, info.Shape...), func() { releaseBytes(raw) })
	if err != nil {
		return nil, false, err
	}
	t, err = tensors.FromBuffer(backend, buf)
	return t, err == nil, err
}

// littleEndian: the host's byte order is the file's.
func littleEndian() bool { return binary.NativeEndian.Uint16([]byte{1, 0}) == 1 }
