package gocpu

import (
	"sync"

	"github.com/pkg/errors"
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

// split runs f on t contiguous ranges of [0, n), each on its own goroutine
// (t ≤ 1: f(0, n) on the caller's).
func split(t, n int, f func(lo, hi int)) {
	if t <= 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for i := range t {
		lo, hi := i*n/t, (i+1)*n/t
		wg.Add(1)
		go func() { defer wg.Done(); f(lo, hi) }()
	}
	wg.Wait()
}

// parallelItems runs f(i) for i in [0, n) on up to x.threads() goroutines.
func parallelItems(x *runCtx, n int, f func(i int)) {
	t := min(x.threads(), n)
	if t <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	for w := range t {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += t {
				f(i)
			}
		}()
	}
	wg.Wait()
}

func errUnsupported(op, dtype string) error {
	return errors.Errorf("gocpu: %s of %s is not implemented", op, dtype)
}
