package gemm

import (
	"runtime"
	"sync/atomic"
)

// minParallel is the work (m·N·K multiply-adds) below which MatMul stays
// on the calling goroutine: a goroutine hand-off costs a few µs.
const minParallel = 1 << 18

// parallel splits C over up to threads goroutines (split).
func (j *job) parallel(threads int) {
	kn := j.b.kern
	split(kn.mr, kn.nr, j.m, j.b.N, j.b.K, threads, j.run)
}

// split runs a product C[m, n] (inner dimension k, tiles mr×nr) over up
// to threads goroutines with a fixed partition: by MR row panels when
// there are plenty (each goroutine packs only its own rows of A), else by
// NR column panels (each streams its own part of B). run(r0, r1, p0, p1)
// computes rows [r0, r1) × column panels [p0, p1). The partition changes
// no result: every element is the same chain.
func split(mr, nr, m, n, k, threads int, run func(r0, r1, p0, p1 int)) {
	mp := (m + mr - 1) / mr
	np := (n + nr - 1) / nr
	if m*n*k < minParallel {
		run(0, m, 0, np)
		return
	}
	if threads <= 1 {
		runLocked(run, 0, m, 0, np)
		return
	}
	tm, tn := 1, min(threads, np)
	if mp >= 4*threads || np < threads {
		tm, tn = min(threads, mp), 1
	}
	if tm == 1 {
		splitPanels(m, np, tn, run)
		return
	}
	RunTeam(tm*tn, func(w int) {
		im, in := w/tn, w%tn
		r0, r1 := min(m, mr*(mp*im/tm)), min(m, mr*(mp*(im+1)/tm))
		p0, p1 := np*in/tn, np*(in+1)/tn
		runLocked(run, r0, r1, p0, p1)
	})
}

// splitPanels is split by column panels for few rows (decode): the
// goroutines (the caller's among them) take slices of about an eighth of
// a goroutine's share of the np panels from a shared counter, so that
// where another process holds a core the goroutine on the free one
// streams more of B instead of the product waiting for a fixed share.
func splitPanels(m, np, threads int, run func(r0, r1, p0, p1 int)) {
	shareOut(np, max(1, np/(8*threads)), threads, true, func(p0, p1 int) { run(0, m, p0, p1) })
}

// shareOut runs run over [0, n) on threads goroutines (the caller's among
// them), each taking the next slice of [0, n) from a shared counter until
// none is left; locked pins each goroutine to its OS thread (runLocked).
func shareOut(n, slice, threads int, locked bool, run func(lo, hi int)) {
	var next atomic.Int64
	worker := func() {
		if locked {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
		}
		for {
			lo := int(next.Add(int64(slice))) - slice
			if lo >= n {
				return
			}
			run(lo, min(lo+slice, n))
		}
	}
	RunTeam(threads, func(int) { worker() })
}

// runLocked is run on one OS thread: a goroutine preempted mid-call then
// resumes where its L1/L2 hold its packed A block and B panel, instead of
// being stolen by an idle P on another core (measured: a few % at m=512).
func runLocked(run func(r0, r1, p0, p1 int), r0, r1, p0, p1 int) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	run(r0, r1, p0, p1)
}

// runPanels runs f on panel ranges splitting [0, np) over up to threads
// goroutines.
func runPanels(np, threads int, f func(p0, p1 int)) {
	t := max(1, min(threads, np))
	RunTeam(t, func(w int) { f(np*w/t, np*(w+1)/t) })
}
