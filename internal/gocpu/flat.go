package gocpu

import (
	"sync"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/dtypes/bfloat16"
	"github.com/pkg/errors"
)

// checkDType refuses the dtypes this backend does not compute in.
func checkDType(dt dtypes.DType) error {
	switch dt {
	case dtypes.Bool, dtypes.Int32, dtypes.Int64, dtypes.Float32, dtypes.Float64:
		return nil
	}
	return errors.Errorf("gocpu: dtype %s is not supported (bool, int32, int64, float32, float64)", dt)
}

// checkStorageDType is checkDType for buffers and parameters, which may
// also be bfloat16: weights stored as bf16 that the graph converts to f32
// at their use (bf16.go).
func checkStorageDType(dt dtypes.DType) error {
	if dt == dtypes.BFloat16 {
		return nil
	}
	return checkDType(dt)
}

// makeFlat returns a zeroed []T of n elements for dt.
func makeFlat(dt dtypes.DType, n int) any {
	switch dt {
	case dtypes.Bool:
		return make([]bool, n)
	case dtypes.Int32:
		return make([]int32, n)
	case dtypes.Int64:
		return make([]int64, n)
	case dtypes.Float32:
		return make([]float32, n)
	case dtypes.Float64:
		return make([]float64, n)
	case dtypes.BFloat16:
		return make([]bfloat16.BFloat16, n)
	}
	panic("gocpu: makeFlat of unsupported dtype " + dt.String())
}

// flatLen is len(flat).
func flatLen(flat any) int {
	switch f := flat.(type) {
	case []bool:
		return len(f)
	case []int32:
		return len(f)
	case []int64:
		return len(f)
	case []float32:
		return len(f)
	case []float64:
		return len(f)
	case []bfloat16.BFloat16:
		return len(f)
	}
	return -1
}

// reslice is flat[:n] (n ≤ cap(flat)).
func reslice(flat any, n int) any {
	switch f := flat.(type) {
	case []bool:
		return f[:n]
	case []int32:
		return f[:n]
	case []int64:
		return f[:n]
	case []float32:
		return f[:n]
	case []float64:
		return f[:n]
	case []bfloat16.BFloat16:
		return f[:n]
	}
	return flat
}

// flatCap is cap(flat).
func flatCap(flat any) int {
	switch f := flat.(type) {
	case []bool:
		return cap(f)
	case []int32:
		return cap(f)
	case []int64:
		return cap(f)
	case []float32:
		return cap(f)
	case []float64:
		return cap(f)
	case []bfloat16.BFloat16:
		return cap(f)
	}
	return -1
}

// copyFlat copies src into dst, both []T of the same T and length.
func copyFlat(dst, src any) error {
	n := -1
	switch d := dst.(type) {
	case []bool:
		if s, ok := src.([]bool); ok && len(s) == len(d) {
			n = copy(d, s)
		}
	case []int32:
		if s, ok := src.([]int32); ok && len(s) == len(d) {
			n = copy(d, s)
		}
	case []int64:
		if s, ok := src.([]int64); ok && len(s) == len(d) {
			n = copy(d, s)
		}
	case []float32:
		if s, ok := src.([]float32); ok && len(s) == len(d) {
			n = copy(d, s)
		}
	case []float64:
		if s, ok := src.([]float64); ok && len(s) == len(d) {
			n = copy(d, s)
		}
	case []bfloat16.BFloat16:
		if s, ok := src.([]bfloat16.BFloat16); ok && len(s) == len(d) {
			n = copy(d, s)
		}
	}
	if n < 0 {
		return errors.Errorf("gocpu: cannot copy %T (len %d) into %T (len %d)", src, flatLen(src), dst, flatLen(dst))
	}
	return nil
}

// pool keeps released intermediate storage for reuse, by dtype and length:
// a forward pass allocates the same sizes layer after layer, and reusing
// them keeps the Go heap (and the GC's work) at one layer's temporaries.
//
// Sizes no execution asked for in the last poolKeep executions are
// dropped (age): the pool holds what the current graphs use, not what a
// graph of another shape left behind. Without it a generation's prefill
// graphs (prompt-sized temporaries) filled the pool to maxPoolBytes, its
// decode steps never reused them, and the live heap stayed above the Go
// memory limit: the collector ran ~30 times a second through the whole
// decode and took 42 % of a gsm8k run's CPU.
type pool struct {
	mu    sync.Mutex
	free  map[poolKey][]any
	seen  map[poolKey]uint64 // the epoch a size was last asked for or returned
	epoch uint64             // executions aged so far
	bytes int64
}

type poolKey struct {
	dt dtypes.DType
	n  int
}

// maxPoolBytes bounds what the pool holds; beyond it storage is left to
// the garbage collector.
const maxPoolBytes = 1 << 30

// poolKeep is how many executions a size stays pooled without use.
const poolKeep = 3

func newPool() *pool { return &pool{free: map[poolKey][]any{}, seen: map[poolKey]uint64{}} }

// get returns a []T of n elements; its contents are arbitrary unless zero.
// It is pooled storage of exactly n elements, else the smallest pooled
// storage of up to poolFit × n (sliced to n: causal attention's query
// chunks, largest first, then share the first chunk's buffers), else new.
func (p *pool) get(dt dtypes.DType, n int, zero bool) any {
	k := poolKey{dt, n}
	p.mu.Lock()
	p.seen[k] = p.epoch
	if len(p.free[k]) == 0 {
		k = p.fit(dt, n)
	}
	if l := p.free[k]; len(l) > 0 {
		f := l[len(l)-1]
		l[len(l)-1] = nil
		p.free[k] = l[:len(l)-1]
		p.bytes -= int64(k.n * dt.Size())
		p.seen[k] = p.epoch
		p.mu.Unlock()
		f = reslice(f, n)
		if zero {
			clearFlat(f)
		}
		return f
	}
	p.mu.Unlock()
	return makeFlat(dt, n)
}

// poolFit bounds how much larger than asked pooled storage may be.
const poolFit = 4

// fit is the key of the smallest pooled storage of dt with more than n and
// at most poolFit × n elements, or {dt, n} when none is (mu held).
func (p *pool) fit(dt dtypes.DType, n int) poolKey {
	best := poolKey{dt, n}
	for k, l := range p.free {
		if k.dt == dt && len(l) > 0 && k.n > n && k.n <= poolFit*n && (best.n == n || k.n < best.n) {
			best = k
		}
	}
	return best
}

// put returns storage to the pool, under its capacity.
func (p *pool) put(dt dtypes.DType, flat any) {
	n := flatCap(flat)
	size := int64(n * dt.Size())
	if n <= 0 || size < 4096 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bytes+size > maxPoolBytes {
		return
	}
	k := poolKey{dt, n}
	p.free[k] = append(p.free[k], reslice(flat, n))
	p.seen[k] = p.epoch
	p.bytes += size
}

// age ends an execution: sizes unused for poolKeep executions leave the
// pool (to the garbage collector).
func (p *pool) age() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.epoch++
	for k, e := range p.seen {
		if p.epoch-e <= poolKeep {
			continue
		}
		p.bytes -= int64(len(p.free[k]) * k.n * k.dt.Size())
		delete(p.free, k)
		delete(p.seen, k)
	}
}

func (p *pool) drain() {
	p.mu.Lock()
	p.free, p.seen, p.bytes = map[poolKey][]any{}, map[poolKey]uint64{}, 0
	p.mu.Unlock()
}

func clearFlat(flat any) {
	switch f := flat.(type) {
	case []bool:
		clear(f)
	case []int32:
		clear(f)
	case []int64:
		clear(f)
	case []float32:
		clear(f)
	case []float64:
		clear(f)
	case []bfloat16.BFloat16:
		clear(f)
	}
}
