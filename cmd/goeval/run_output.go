package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	goevalpkg "github.com/goeval/goeval"
	"github.com/goeval/goeval/internal/env"
	"github.com/goeval/goeval/internal/errs"
)

// progressIntervalEnv sets how often progress is logged when stderr is not
// a terminal (a Go duration or a number of seconds; default 30s).
var progressIntervalEnv = env.ProgressInterval

const defaultProgressInterval = 30 * time.Second

// progressPrinter renders one run's progress on stderr. On a terminal it
// redraws one bar (requests done/total, tokens/s, ETA); elsewhere (CI,
// nohup, Slurm logs) it writes a line when the requests start, then at
// most one per interval, then one when they are all answered. Stages with
// no requests (building prompts) print nothing.
type progressPrinter struct {
	w        io.Writer
	tty      bool
	every    time.Duration
	now      func() time.Time
	last     time.Time
	shown    bool // a line or bar is on screen
	finished bool // the final line was printed
}

// newProgressPrinter returns a printer for f, which is a terminal or not.
func newProgressPrinter(f *os.File, every time.Duration) *progressPrinter {
	tty := false
	if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		tty = true
	}
	return &progressPrinter{w: f, tty: tty, every: every, now: time.Now}
}

// progressInterval reads progressIntervalEnv; bad values are bad input.
func progressInterval() (time.Duration, error) {
	v := strings.TrimSpace(progressIntervalEnv.Get())
	if v == "" {
		return defaultProgressInterval, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		var secs float64
		if _, serr := fmt.Sscanf(v, "%g", &secs); serr != nil || fmt.Sprint(secs) != v {
			return 0, errs.BadInputf("%s=%q: use a duration such as 30s or 2m, or a number of seconds", progressIntervalEnv, v)
		}
		d = time.Duration(secs * float64(time.Second))
	}
	if d <= 0 {
		return 0, errs.BadInputf("%s=%q: the interval must be positive", progressIntervalEnv, v)
	}
	return d, nil
}

// report is the goeval.Options.Progress callback.
func (p *progressPrinter) report(r goevalpkg.Progress) {
	if r.RequestsTotal == 0 || p.finished {
		return
	}
	done := r.RequestsDone >= r.RequestsTotal
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\x1b[K", progressBar(r))
		p.shown, p.finished = true, done
		return
	}
	now := p.now()
	if p.shown && !done && now.Sub(p.last) < p.every {
		return
	}
	fmt.Fprintln(p.w, progressLine(r))
	p.shown, p.finished, p.last = true, done, now
}

// finish ends the bar's line on a terminal.
func (p *progressPrinter) finish() {
	if p.tty && p.shown {
		fmt.Fprintln(p.w)
	}
	p.shown = false
}

// progressBar is the terminal form: stage, bar, percent, requests, speed, ETA.
func progressBar(r goevalpkg.Progress) string {
	frac := float64(r.RequestsDone) / float64(r.RequestsTotal)
	const width = 30
	n := min(int(frac*width), width)
	bar := strings.Repeat("█", n) + strings.Repeat("·", width-n)
	return fmt.Sprintf("%-21s %s %5.1f%% %d/%d requests, %.0f tok/s, ETA %s",
		r.Stage, bar, 100*frac, r.RequestsDone, r.RequestsTotal, r.TokensPerSec, r.ETA.Round(time.Second))
}

// progressLine is the log form, one self-contained line.
func progressLine(r goevalpkg.Progress) string {
	frac := float64(r.RequestsDone) / float64(r.RequestsTotal)
	eta := "ETA " + r.ETA.Round(time.Second).String()
	if r.RequestsDone >= r.RequestsTotal {
		eta = "done"
	}
	return fmt.Sprintf("progress: %s %d/%d requests (%.1f%%), %d docs, %.0f tok/s, elapsed %s, %s",
		r.Stage, r.RequestsDone, r.RequestsTotal, 100*frac, r.Docs, r.TokensPerSec, r.Elapsed.Round(time.Second), eta)
}
