package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	goevalpkg "github.com/goeval/goeval"
)

// newProgressPrinter renders progress on w: a redrawn bar on a terminal,
// else a line at most every 10 seconds.
func newProgressPrinter(w *os.File) func(goevalpkg.Progress) {
	tty := false
	if st, err := w.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		tty = true
	}
	var last time.Time
	return func(p goevalpkg.Progress) {
		if !tty && time.Since(last) < 10*time.Second && p.RequestsDone < p.RequestsTotal {
			return
		}
		last = time.Now()
		printProgress(w, p, tty)
	}
}

func printProgress(w io.Writer, p goevalpkg.Progress, tty bool) {
	frac := 0.0
	if p.RequestsTotal > 0 {
		frac = float64(p.RequestsDone) / float64(p.RequestsTotal)
	}
	const width = 30
	bar := strings.Repeat("█", int(frac*width)) + strings.Repeat("·", width-int(frac*width))
	line := fmt.Sprintf("%-22s %s %5.1f%% %d docs, %d/%d requests, %.0f tok/s, ETA %s",
		p.Stage, bar, 100*frac, p.Docs, p.RequestsDone, p.RequestsTotal, p.TokensPerSec, p.ETA.Round(time.Second))
	if tty {
		fmt.Fprintf(w, "\r%s\x1b[K", line)
	} else {
		fmt.Fprintln(w, line)
	}
}
