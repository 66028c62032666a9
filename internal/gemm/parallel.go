package gemm

import (
	"runtime"
	"sync"
)

// minParallel is the work (m·N·K multiply-adds) below which MatMul stays
// on the calling goroutine: a goroutine hand-off costs a few µs.
const minParallel = 1 << 18

// parallel splits C over up to threads goroutines with a fixed partition:
// by MR row panels when there are plenty (each goroutine packs only its own
// rows of A), else by NR column panels (each streams its own part of B).
// The partition changes no result: every element is the same chain.
func (j *job) parallel(threads int) {
	kn := j.b.kern
	mp := (j.m + kn.mr - 1) / kn.mr
	np := (j.b.N + kn.nr - 1) / kn.nr
	if j.m*j.b.N*j.b.K < minParallel {
		j.run(0, j.m, 0, np)
		return
	}
	if threads <= 1 {
		j.runLocked(0, j.m, 0, np)
		return
	}
	tm, tn := 1, min(threads, np)
	if mp >= 4*threads || np < threads {
		tm, tn = min(threads, mp), 1
	}
	var wg sync.WaitGroup
	for w := tm*tn - 1; w >= 0; w-- {
		im, in := w/tn, w%tn
		r0, r1 := min(j.m, kn.mr*(mp*im/tm)), min(j.m, kn.mr*(mp*(im+1)/tm))
		p0, p1 := np*in/tn, np*(in+1)/tn
		if w == 0 {
			j.runLocked(r0, r1, p0, p1)
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			j.runLocked(r0, r1, p0, p1)
		}()
	}
	wg.Wait()
}

// runLocked is run on one OS thread: a goroutine preempted mid-call then
// resumes where its L1/L2 hold its packed A block and B panel, instead of
// being stolen by an idle P on another core (measured: a few % at m=512).
func (j *job) runLocked(r0, r1, p0, p1 int) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	j.run(r0, r1, p0, p1)
}
