package pjrt

import (
	"fmt"
	"io"
	"os"
	"time"
)

// bar draws a download's progress on w: redrawn in place at most every
// 200 ms on a terminal; elsewhere one line when it starts and one when it
// ends, so logs stay short.
type bar struct {
	w           io.Writer
	label       string
	total, n    int64
	start, last time.Time
	tty         bool
}

func newBar(w io.Writer, label string, total int64) *bar {
	b := &bar{w: w, label: label, total: total, start: time.Now()}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			b.tty = true
		}
	}
	if w != nil && !b.tty {
		fmt.Fprintf(w, "%s: %s …\n", label, mb(total))
	}
	return b
}

// Write counts p's bytes and redraws.
func (b *bar) Write(p []byte) (int, error) {
	b.n += int64(len(p))
	if b.tty && time.Since(b.last) >= 200*time.Millisecond {
		b.last = time.Now()
		b.draw("\r\033[K")
	}
	return len(p), nil
}

// done draws the final line.
func (b *bar) done(ok bool) {
	if b.w == nil {
		return
	}
	if !ok {
		if b.tty {
			fmt.Fprintln(b.w)
		}
		return
	}
	prefix := ""
	if b.tty {
		prefix = "\r\033[K"
	}
	b.draw(prefix)
	fmt.Fprintln(b.w)
}

func (b *bar) draw(prefix string) {
	if b.w == nil {
		return
	}
	el := time.Since(b.start).Seconds()
	pct := 0.0
	if b.total > 0 {
		pct = 100 * float64(b.n) / float64(b.total)
	}
	rate := 0.0
	if el > 0 {
		rate = float64(b.n) / el
	}
	fmt.Fprintf(b.w, "%s%s: %s of %s (%.0f%%), %s/s", prefix, b.label, mb(b.n), mb(b.total), pct, mb(int64(rate)))
}

// mb formats bytes as megabytes.
func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
