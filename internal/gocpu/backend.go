// Package gocpu is goeval's pure-Go GoMLX backend: the ops goeval's model
// graphs use, in float32 (float64, int32 and bool where the graphs need
// them), with matrix products on the assembly micro-kernels of
// internal/gemm. It is registered as "gocpu" and is what --device cpu runs.
//
// Results are deterministic and batch-invariant: every matmul output is
// one sequential fused multiply-add chain along the contracted axis (see
// internal/gemm) and every reduction runs in index order, so a row's
// values never depend on the other rows of its batch or on the number of
// threads.
//
// Graphs are executed node by node in creation order (a topological
// order); each node's op is a closure prepared when the graph is built.
// Intermediate storage goes back to a pool at its last use.
package gocpu

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/pkg/errors"

	"github.com/goeval/goeval/internal/gemm"
)

// Name is the backend's registered name.
const Name = "gocpu"

func init() {
	backends.Register(Name, func(config string) (backends.Backend, error) { return New(config) })
}

// Backend implements backends.Backend.
type Backend struct {
	threads   int
	pool      *pool
	finalized bool
	// bf16Dot: products with packed bf16 weights run gemm.MatMulBF16Dot
	// and those with packed 4-bit weights held in bf16 gemm.MatMulQ4Dot
	// (VDPBF16PS, activations rounded to bf16) instead of the widening
	// kernels (config "bf16=dot"; bf16.go, q4.go).
	bf16Dot bool
	// noScreen: greedy heads compute the whole product (config
	// "screen=off"; argmax_head.go).
	noScreen bool
}

var _ backends.Backend = (*Backend)(nil)

// New returns a backend. config is empty or a comma-separated list of
// "threads=N" (default GOMAXPROCS), "bf16=widen|dot" (default widen:
// bf16 weights widened to f32 in the kernels; dot: VDPBF16PS on
// activations rounded to bf16, where the CPU has AVX512_BF16 — faster
// products, other numbers; for measurements) and "screen=on|off" (default
// on: greedy LM heads through an int8 screen, the same argmax; off: the
// whole product, for comparisons).
func New(config string) (*Backend, error) {
	b := &Backend{threads: runtime.GOMAXPROCS(0), pool: newPool()}
	for _, opt := range strings.Split(config, ",") {
		opt = strings.TrimSpace(opt)
		if opt == "" {
			continue
		}
		k, v, _ := strings.Cut(opt, "=")
		switch k {
		case "threads":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return nil, errors.Errorf("gocpu: threads=%q: want a positive integer", v)
			}
			b.threads = n
		case "bf16":
			if v != "widen" && v != "dot" {
				return nil, errors.Errorf("gocpu: bf16=%q: want widen or dot", v)
			}
			if v == "dot" && !gemm.HasBF16Dot() {
				return nil, errors.Errorf("gocpu: bf16=dot needs AVX512_BF16 (VDPBF16PS) and the AVX-512 kernels: this CPU lacks them, or $GOEVAL_GEMM_KERNEL chose others")
			}
			b.bf16Dot = v == "dot"
		case "screen":
			if v != "on" && v != "off" {
				return nil, errors.Errorf("gocpu: screen=%q: want on or off", v)
			}
			b.noScreen = v == "off"
		default:
			return nil, errors.Errorf("gocpu: unknown option %q (known: threads=N, bf16=widen|dot, screen=on|off)", opt)
		}
	}
	return b, nil
}

// Name implements backends.Backend.
func (b *Backend) Name() string { return Name }

// String implements backends.Backend.
func (b *Backend) String() string { return Name }

// Description implements backends.Backend.
func (b *Backend) Description() string {
	return fmt.Sprintf("goeval pure-Go CPU backend (%s matmul, %d threads)", gemm.Kernel(), b.threads)
}

// NumDevices implements backends.Backend.
func (b *Backend) NumDevices() int { return 1 }

// DeviceDescription implements backends.Backend.
func (b *Backend) DeviceDescription(backends.DeviceNum) string { return "CPU" }

// Capabilities implements backends.Backend.
func (b *Backend) Capabilities() backends.Capabilities {
	c := backends.Capabilities{Operations: map[backends.OpType]bool{}, DTypes: map[dtypes.DType]bool{}}
	for op := range opSupported {
		c.Operations[op] = true
	}
	// BFloat16 is storage only: parameters converted to float32 where used
	// (bf16.go).
	for _, dt := range []dtypes.DType{dtypes.Bool, dtypes.Int32, dtypes.Int64, dtypes.Float32, dtypes.Float64, dtypes.BFloat16} {
		c.DTypes[dt] = true
	}
	return c
}

// Builder implements backends.Backend.
func (b *Backend) Builder(name string) backends.Builder { return newBuilder(b, name) }

// Finalize implements backends.Backend.
func (b *Backend) Finalize() { b.finalized = true; b.pool.drain() }

// IsFinalized implements backends.Backend.
func (b *Backend) IsFinalized() bool { return b.finalized }

// Buffer is a tensor in Go memory: its shape and a flat []T.
type Buffer struct {
	shape shapes.Shape
	flat  any
	// packed caches this buffer's right-hand-side layouts for matmuls
	// (weights are packed once, at their first product).
	packed *packCache
	// weight, when set, is this buffer's weight [N, K] packed in place:
	// flat holds the packed layout (weights.go). noPack: never pack it in
	// place (something other than a product reads it).
	weight *gemm.PackedB
	// weightBF16 is weight for a bfloat16 weight (bf16.go).
	weightBF16 *gemm.PackedBF16
	// q4, when set, is this buffer's float32 weight [N, K] held as packed
	// 4-bit codes; flat is then nil (q4.go).
	q4 *gemm.PackedQ4
	// screen is the weight's screening copy for greedy heads, made at
	// their first run (argmax_head.go).
	screen *headScreen
	// int8w is the weight's int8 copy for LLM.int8's products, made at
	// their first run (int8dot.go).
	int8w  *int8Copy
	noPack atomic.Bool
	// pool, when set, takes the storage back when the buffer is finalized:
	// set on execution outputs, cleared once the storage is handed out
	// (BufferData), so no one can hold it when it is reused.
	pool *pool
	// release, when set, runs at finalization: the storage is not Go
	// memory (storage.go).
	release func()
}

func (b *Backend) buffer(x backends.Buffer) (*Buffer, error) {
	if b.finalized {
		return nil, errors.New("gocpu: backend is finalized")
	}
	buf, ok := x.(*Buffer)
	if !ok || buf == nil {
		return nil, errors.Errorf("gocpu: buffer is %T, not a gocpu buffer", x)
	}
	if buf.flat == nil && buf.q4 == nil {
		return nil, errors.New("gocpu: buffer was finalized")
	}
	return buf, nil
}

// BufferFinalize implements backends.DataInterface.
func (b *Backend) BufferFinalize(x backends.Buffer) error {
	buf, ok := x.(*Buffer)
	if !ok || buf == nil {
		return errors.Errorf("gocpu: buffer is %T, not a gocpu buffer", x)
	}
	if buf.pool != nil && buf.flat != nil {
		buf.pool.put(buf.shape.DType, buf.flat)
	}
	if buf.release != nil {
		buf.release()
	}
	buf.flat, buf.packed, buf.pool, buf.weight, buf.weightBF16, buf.q4, buf.release = nil, nil, nil, nil, nil, nil, nil
	return nil
}

// BufferShape implements backends.DataInterface.
func (b *Backend) BufferShape(x backends.Buffer) (shapes.Shape, error) {
	buf, err := b.buffer(x)
	if err != nil {
		return shapes.Invalid(), err
	}
	return buf.shape, nil
}

// BufferDeviceNum implements backends.DataInterface.
func (b *Backend) BufferDeviceNum(x backends.Buffer) (backends.DeviceNum, error) {
	_, err := b.buffer(x)
	return 0, err
}

// BufferToFlatData implements backends.DataInterface.
func (b *Backend) BufferToFlatData(x backends.Buffer, flat any) error {
	buf, err := b.buffer(x)
	if err != nil {
		return err
	}
	return buf.flatCopy(flat)
}

// BufferFromFlatData implements backends.DataInterface.
func (b *Backend) BufferFromFlatData(dev backends.DeviceNum, flat any, shape shapes.Shape) (backends.Buffer, error) {
	if dev != 0 {
		return nil, errors.Errorf("gocpu: device %d does not exist (one device, 0)", dev)
	}
	if err := checkStorageDType(shape.DType); err != nil {
		return nil, err
	}
	buf := &Buffer{shape: shape.Clone(), flat: makeFlat(shape.DType, shape.Size())}
	if err := copyFlat(buf.flat, flat); err != nil {
		return nil, err
	}
	return buf, nil
}

// HasSharedBuffers implements backends.DataInterface: buffers are Go
// memory the caller may read and write between executions.
func (b *Backend) HasSharedBuffers() bool { return true }

// NewSharedBuffer implements backends.DataInterface.
func (b *Backend) NewSharedBuffer(dev backends.DeviceNum, shape shapes.Shape) (backends.Buffer, any, error) {
	if dev != 0 {
		return nil, nil, errors.Errorf("gocpu: device %d does not exist (one device, 0)", dev)
	}
	if err := checkStorageDType(shape.DType); err != nil {
		return nil, nil, err
	}
	buf := &Buffer{shape: shape.Clone(), flat: makeFlat(shape.DType, shape.Size())}
	return buf, buf.flat, nil
}

// derived returns *slot, a buffer's holder of a copy derived from it
// (Buffer.screen, Buffer.int8w), made empty under mu on first use; the
// holder's sync.Once then makes the copy.
func derived[T any](mu *sync.Mutex, slot **T) *T {
	mu.Lock()
	defer mu.Unlock()
	if *slot == nil {
		*slot = new(T)
	}
	return *slot
}

// BufferData implements backends.DataInterface. A caller that writes into
// it must not do so while an execution uses the buffer.
func (b *Backend) BufferData(x backends.Buffer) (any, error) {
	buf, err := b.buffer(x)
	if err != nil {
		return nil, err
	}
	if buf.isPacked() { // the caller reads the stored layout
		layoutMu.Lock()
		if buf.isPacked() {
			buf.unpack(b.threads)
		}
		layoutMu.Unlock()
	}
	buf.packed, buf.screen, buf.int8w = nil, nil, nil // the caller may change it: drop what derives from it
	buf.pool = nil                                    // the caller may keep it: never reuse it
	return buf.flat, nil
}

// BufferCopyToDevice implements backends.DataInterface.
func (b *Backend) BufferCopyToDevice(x backends.Buffer, dev backends.DeviceNum) (backends.Buffer, error) {
	buf, err := b.buffer(x)
	if err != nil {
		return nil, err
	}
	c, flat, err := b.NewSharedBuffer(dev, buf.shape)
	if err != nil {
		return nil, err
	}
	return c, buf.flatCopy(flat)
}
