package gocpu

import (
	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/pkg/errors"
)

// NewZeros returns a zeroed buffer of shape that the backend owns, as it
// owns an execution's outputs: donated to an execution, in-place updates
// (DynamicUpdateSlice) write into it instead of into a copy, and its
// storage goes back to the pool when it is finalized. A tensor's local
// storage moved to the backend (tensors.FromShape, then donated) is a
// copy the backend cannot write in place: the first execution that
// updates it copies it again, so a KV cache made that way was held three
// times over during its first prefill (the local zeros, the device copy
// and the execution's copy).
//
//	shape → a zeroed [shape] buffer (for tensors.FromBuffer)
func NewZeros(b backends.Backend, shape shapes.Shape) (backends.Buffer, error) {
	be, ok := b.(*Backend)
	if !ok {
		return nil, errors.Errorf("gocpu: NewZeros on backend %T, not gocpu's", b)
	}
	if be.finalized {
		return nil, errors.New("gocpu: backend is finalized")
	}
	if err := checkStorageDType(shape.DType); err != nil {
		return nil, err
	}
	return &Buffer{shape: shape.Clone(), flat: be.pool.get(shape.DType, shape.Size(), true), pool: be.pool}, nil
}
