package gocpu

import (
	"github.com/pkg/errors"

	"github.com/goeval/goeval/internal/gemm"
)

// minChunk is the smallest element count worth a goroutine.
const minChunk = 1 << 15

// parallel runs f over [0, n) in up to x.threads() contiguous chunks of
// at least minChunk elements.
func parallel(x *runCtx, n int, f func(lo, hi int)) { split(min(x.threads(), n/minChunk), n, f) }

// parallelRange splits [0, n) into up to x.threads() contiguous ranges.
func parallelRange(x *runCtx, n int, f func(lo, hi int)) { split(min(x.threads(), n), n, f) }

// parallelRows runs f over n rows holding elems elements in all: split
// over the threads when there are at least minChunk elements, else on the
// caller's goroutine.
func parallelRows(x *runCtx, n, elems int, f func(lo, hi int)) {
	if elems < minChunk {
		f(0, n)
		return
	}
	parallelRange(x, n, f)
}

// split runs f on t contiguous ranges of [0, n), the first on the
// caller's goroutine, the others on gemm's helper team (t ≤ 1: f(0, n)).
func split(t, n int, f func(lo, hi int)) {
	if t <= 1 {
		f(0, n)
		return
	}
	gemm.RunTeam(t, func(i int) { f(i*n/t, (i+1)*n/t) })
}

// parallelItems runs f(i) for i in [0, n) on up to x.threads() goroutines
// (the caller's and gemm's helper team).
func parallelItems(x *runCtx, n int, f func(i int)) {
	t := min(x.threads(), n)
	if t <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	gemm.RunTeam(t, func(w int) {
		for i := w; i < n; i += t {
			f(i)
		}
	})
}

func errUnsupported(op, dtype string) error {
	return errors.Errorf("gocpu: %s of %s is not implemented", op, dtype)
}
