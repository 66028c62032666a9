package gemm

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Decode runs a product every few tens of µs, each split over the cores
// and each too short (30–200 µs at the 1B shape) to absorb waking a
// parked goroutine's thread, which on a virtual machine's idle core costs
// about as much as the product. Measured on 2 cores (Zen 4, KVM), a
// 2048×2048 4-bit product: one thread 220 µs, two threads through new
// goroutines 204 µs, through the team 146 µs. The team's helpers are goroutines that stay: after a
// job each polls for the next for up to teamSpin, yielding its processor
// between polls, before it parks; a caller polls for their ends the same
// way. A product then starts on every core at once.

// teamSpin is how long an idle helper (or a caller waiting on helpers)
// polls before it parks.
const teamSpin = 200 * time.Microsecond

// team is the helpers and the lock a call that uses them holds.
type team struct {
	mu   sync.Mutex // held by the call running on the helpers
	jobs chan func()
	n    int // helpers started (under mu)
}

var helpers = team{jobs: make(chan func(), 64)} // sends never wait: a caller never parks handing out

// RunTeam runs f(0) on the calling goroutine and f(1) … f(t−1) on other
// goroutines, returning once all have returned: on the team's helpers,
// or on new goroutines while another call holds the team (a concurrent
// call, or one made inside f). The pure-Go backend splits its other ops
// through it too.
func RunTeam(t int, f func(w int)) {
	if t <= 1 {
		f(0)
		return
	}
	if !helpers.mu.TryLock() {
		spawn(t, f)
		return
	}
	defer helpers.mu.Unlock()
	helpers.grow(t - 1)
	var pending atomic.Int32
	pending.Store(int32(t - 1))
	done := make(chan struct{}, 1)
	for w := 1; w < t; w++ {
		helpers.jobs <- func() {
			f(w)
			if pending.Add(-1) == 0 {
				done <- struct{}{}
			}
		}
	}
	f(0)
	poll(func() bool { return pending.Load() == 0 })
	<-done
}

// spawn is RunTeam on new goroutines.
func spawn(t int, f func(w int)) {
	var wg sync.WaitGroup
	for w := 1; w < t; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(w)
		}()
	}
	f(0)
	wg.Wait()
}

// grow starts helpers until there are n (the caller holds mu).
func (h *team) grow(n int) {
	for ; h.n < n; h.n++ {
		go h.help()
	}
}

// help runs jobs for good, polling for the next for up to teamSpin.
func (h *team) help() {
	for {
		var job func()
		poll(func() bool {
			select {
			case job = <-h.jobs:
				return true
			default:
				return false
			}
		})
		if job == nil {
			job = <-h.jobs
		}
		job()
	}
}

// poll calls ready, yielding the processor between calls, until it
// returns true or teamSpin has passed.
func poll(ready func() bool) {
	start := time.Now()
	for !ready() {
		if time.Since(start) > teamSpin {
			return
		}
		runtime.Gosched()
	}
}
