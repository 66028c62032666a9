// Package peak measures the machine's f32 arithmetic peak with a
// register-only FMA loop on every core, the denominator of `goeval bench`'s
// "% of peak".
package peak

import (
	"runtime"
	"sync"
	"time"
)

// Result is a measured peak.
type Result struct {
	GFLOPS  float64 // f32 GFLOP/s, all threads together
	Threads int     // goroutines (locked to OS threads) that ran the loop
	Kernel  string  // "avx512", "avx2+fma" or "scalar"
}

// Measure runs the widest FMA loop on GOMAXPROCS threads at once for
// about d, three times, and returns the best.
func Measure(d time.Duration) Result {
	name, per, loop := kernel()
	threads := runtime.GOMAXPROCS(0)
	iters := calibrate(loop, d)
	best := 0.0
	for range 3 {
		var wg sync.WaitGroup
		start := time.Now()
		for range threads {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				loop(iters)
			}()
		}
		wg.Wait()
		if g := per * float64(iters) * float64(threads) / time.Since(start).Seconds() / 1e9; g > best {
			best = g
		}
	}
	return Result{GFLOPS: best, Threads: threads, Kernel: name}
}

// calibrate finds an iteration count that runs about d on one thread.
func calibrate(loop func(int64), d time.Duration) int64 {
	n := int64(1 << 16)
	for {
		start := time.Now()
		loop(n)
		if el := time.Since(start); el > d/8 || n > 1<<40 {
			return max(1, int64(float64(n)*float64(d)/float64(el)))
		}
		n *= 4
	}
}

// scalarKernel is a Go loop of 12 independent multiply-adds (2 FLOPs each).
func scalarKernel() (string, float64, func(int64)) {
	return "scalar", 24, func(n int64) {
		var a [12]float32
		x, y := float32(1e-3), float32(0.999)
		for range n {
			for j := range a {
				a[j] = a[j]*y + x
			}
		}
		sink = a[0]
	}
}

// sink keeps the scalar loop from being optimized away.
var sink float32
