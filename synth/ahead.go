package synth

import (
	"bytes"
	"io"
	"runtime"
	"sync"
)

// Tensors are generated ahead of the writer, several at once: each has its
// own random stream (fillTensor), so the bytes are those of generating them
// one after the other, and a checkpoint of 8B parameters (16 GB in bf16,
// about 90 s of one core's random numbers) is written at the speed of the
// machine's cores and disk with at most aheadBytes of tensors (or one
// larger tensor) in memory.

// aheadBytes bounds the generated tensors waiting to be written;
// aheadWorkers is how many are generated at once (0: GOMAXPROCS). Tests
// shrink both.
var (
	aheadBytes   int64 = 2 << 30
	aheadWorkers       = 0
)

// ahead generates the tensors of plan, in plan order, for a writer that
// takes them in that order (fill).
type ahead struct {
	plan  []synthTensor
	dt    string
	seed  uint64
	width int64
	once  sync.Once
	done  []chan struct{} // closed when tensor i is generated
	bufs  [][]byte
	errs  []error
	mu    sync.Mutex
	cond  *sync.Cond
	held  int64 // bytes generated or being generated, not yet written
	quit  bool
}

// newAhead returns the generator of plan's tensors in dtype dt.
func newAhead(plan []synthTensor, dt string, seed uint64, width int64) *ahead {
	a := &ahead{plan: plan, dt: dt, seed: seed, width: width, done: make([]chan struct{}, len(plan)),
		bufs: make([][]byte, len(plan)), errs: make([]error, len(plan))}
	a.cond = sync.NewCond(&a.mu)
	for i := range a.done {
		a.done[i] = make(chan struct{})
	}
	return a
}

// fill writes tensor i to w, waiting for it; tensors must be asked for
// in plan order. The first call starts the generators.
func (a *ahead) fill(i int, w io.Writer) error {
	a.once.Do(func() { go a.run() })
	<-a.done[i]
	err := a.errs[i]
	if err == nil {
		_, err = w.Write(a.bufs[i])
	}
	a.mu.Lock()
	a.held -= a.size(i)
	a.bufs[i] = nil
	a.cond.Broadcast()
	a.mu.Unlock()
	return err
}

// stop ends the generation early (the writer failed): tensors not started
// are never generated.
func (a *ahead) stop() {
	a.mu.Lock()
	a.quit = true
	a.cond.Broadcast()
	a.mu.Unlock()
}

// size is tensor i's bytes.
func (a *ahead) size(i int) int64 { return numel(a.plan[i].shape) * a.width }

// run starts each tensor's generation in order once the bytes held allow
// it (always when none are held), at most aheadWorkers at a time.
func (a *ahead) run() {
	workers := aheadWorkers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	slots := make(chan struct{}, workers)
	for i, t := range a.plan {
		n := a.size(i)
		a.mu.Lock()
		for !a.quit && a.held > 0 && a.held+n > aheadBytes {
			a.cond.Wait()
		}
		if a.quit {
			a.mu.Unlock()
			return
		}
		a.held += n
		a.mu.Unlock()
		slots <- struct{}{}
		go func() {
			defer func() { <-slots }()
			var b bytes.Buffer
			b.Grow(int(n))
			a.errs[i] = fillTensor(&b, t, a.dt, a.seed)
			a.bufs[i] = b.Bytes()
			close(a.done[i])
		}()
	}
}
