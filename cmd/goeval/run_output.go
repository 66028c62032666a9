package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	goevalpkg "github.com/goeval/goeval"
	"github.com/goeval/goeval/internal/errs"
)

// parseGenKwargs reads --gen-kwargs as lm-eval: a JSON object, or k=v
// pairs whose values are typed (true/false, int, float, else string).
func parseGenKwargs(s string) (map[string]any, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	out := map[string]any{}
	if strings.HasPrefix(s, "{") {
		if err := json.Unmarshal([]byte(s), &out); err != nil {
			return nil, errs.BadInputf("--gen-kwargs: bad JSON object: %v", err)
		}
		return out, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, errs.BadInputf("--gen-kwargs %q: %q is not key=value", s, kv)
		}
		out[strings.TrimSpace(k)] = typedValue(strings.TrimSpace(v))
	}
	return out, nil
}

func typedValue(v string) any {
	switch strings.ToLower(v) {
	case "true":
		return true
	case "false":
		return false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return int(n)
	}
	if x, err := strconv.ParseFloat(v, 64); err == nil {
		return x
	}
	return v
}

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
