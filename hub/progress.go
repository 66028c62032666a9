package hub

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// progress is one run's progress bar: bytes present of the bytes needed,
// speed of this run's transfers, and the time left. It draws at most
// every interval on w (nil: counts only).
type progress struct {
	w        io.Writer
	label    string
	total    atomic.Int64 // bytes of the files being fetched
	done     atomic.Int64 // of which present (resumed, cached or transferred)
	moved    atomic.Int64 // transferred over the network this run
	start    time.Time
	interval time.Duration
	mu       sync.Mutex
	last     time.Time
	tty      bool // redraw in place; otherwise only the final line is written
}

func newProgress(w io.Writer, label string) *progress {
	p := &progress{w: w, label: label, start: time.Now(), interval: 250 * time.Millisecond}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

// fileCredit tracks the bytes of one file counted as done, so a retried
// transfer does not count its bytes twice.
type fileCredit struct {
	p *progress
	n int64
}

// set makes the file count n bytes as done.
func (f *fileCredit) set(n int64) {
	f.p.done.Add(n - f.n)
	f.n = n
	f.p.draw(false)
}

// reader counts what it reads as done and moved.
func (f *fileCredit) reader(r io.Reader) io.Reader { return &countReader{r: r, f: f} }

type countReader struct {
	r io.Reader
	f *fileCredit
}

func (c *countReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	if n > 0 {
		c.f.n += int64(n)
		c.f.p.done.Add(int64(n))
		c.f.p.moved.Add(int64(n))
		c.f.p.draw(false)
	}
	return n, err
}

// note prints a line above the bar.
func (p *progress) note(s string) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintln(p.w, s)
}

// draw redraws the bar (at most every interval unless final).
func (p *progress) draw(final bool) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if !final && (!p.tty || now.Sub(p.last) < p.interval) {
		return
	}
	p.last = now
	el := now.Sub(p.start).Seconds()
	total, done, moved := p.total.Load(), p.done.Load(), p.moved.Load()
	speed := 0.0
	if el > 0 {
		speed = float64(moved) / el
	}
	eta := "--"
	if speed > 0 && total >= done {
		eta = time.Duration(float64(total-done) / speed * float64(time.Second)).Round(time.Second).String()
	}
	pct := 100.0
	if total > 0 {
		pct = 100 * float64(done) / float64(total)
	}
	end := ""
	if final {
		end = "\n"
	}
	clear := "\r\033[K"
	if !p.tty {
		clear = ""
	}
	fmt.Fprintf(p.w, "%s%s %5.1f%% %s/%s %s/s ETA %s%s", clear, p.label, pct, humanBytes(done), humanBytes(total), humanBytes(int64(speed)), eta, end)
}

// humanBytes is 1.5MB-style sizes.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%dB", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f%cB", float64(n)/float64(div), "KMGTPE"[exp])
}
