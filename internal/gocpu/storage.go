package gocpu

import (
	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/dtypes/bfloat16"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/pkg/errors"
)

// BufferFromBF16Storage returns a bfloat16 buffer of shape whose storage
// is data itself, not a copy: a weight left in a private (copy-on-write)
// mapping of its checkpoint file, of which only the pages read become
// resident (an embedding table, only gathered from). data must stay valid
// and writable as long as the buffer can be read (a copy-on-write mapping
// is: a weight packed in place writes it). release, if not nil, runs when
// the buffer is finalized (to drop the pages).
func (b *Backend) BufferFromBF16Storage(data []bfloat16.BFloat16, shape shapes.Shape, release func()) (backends.Buffer, error) {
	if b.finalized {
		return nil, errors.New("gocpu: backend is finalized")
	}
	if shape.DType != dtypes.BFloat16 || shape.Size() != len(data) {
		return nil, errors.Errorf("gocpu: BufferFromBF16Storage: %d bfloat16 values for shape %s", len(data), shape)
	}
	if release == nil {
		release = func() {} // marks the storage as given (StorageGiven)
	}
	return &Buffer{shape: shape.Clone(), flat: data, release: release}, nil
}

// StorageGiven counts the buffers among bufs whose storage was given to
// the backend (BufferFromBF16Storage) rather than allocated (for tests and
// diagnostics).
func StorageGiven(bufs ...any) int {
	n := 0
	for _, x := range bufs {
		if buf, ok := x.(*Buffer); ok && buf.release != nil {
			n++
		}
	}
	return n
}
