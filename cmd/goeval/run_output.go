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

// summaryTable renders lm-eval's make_table: one markdown row per metric,
// tasks first, then a table of the aggregated groups.
func summaryTable(res *goevalpkg.Results) string {
	var b strings.Builder
	head := "|Tasks|Version|Filter|n-shot|Metric| |Value| |Stderr|\n|---|---|---|---:|---|---|---:|---|---:|\n"
	b.WriteString(head)
	for _, t := range res.Tasks {
		name := t.Alias
		for _, m := range t.Metrics {
			fmt.Fprintf(&b, "|%s|%v|%s|%d|%s|%s|%.4f|±|%s|\n", name, version(t.Version), m.Filter, t.NumFewshot, m.Name, arrow(m), m.Value, stderrCell(m))
			name = ""
		}
	}
	var groups []*goevalpkg.GroupResult
	for _, g := range res.Groups {
		if g.Aggregate && len(g.Metrics) > 0 {
			groups = append(groups, g)
		}
	}
	if len(groups) > 0 {
		b.WriteString("\n|Groups|Version|Filter|n-shot|Metric| |Value| |Stderr|\n|---|---|---|---:|---|---|---:|---|---:|\n")
		for _, g := range groups {
			name, shots := g.Alias, ""
			if g.NumFewshot != nil {
				shots = strconv.Itoa(*g.NumFewshot)
			}
			for _, m := range g.Metrics {
				fmt.Fprintf(&b, "|%s|%s|%s|%s|%s|%s|%.4f|±|%s|\n", name, g.Version, m.Filter, shots, m.Name, arrow(m), m.Value, stderrCell(m))
				name = ""
			}
		}
	}
	return b.String()
}

func version(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

func arrow(m goevalpkg.Metric) string {
	if m.HigherIsBetter {
		return "↑"
	}
	return "↓"
}

func stderrCell(m goevalpkg.Metric) string {
	if !m.StderrOK {
		return "N/A"
	}
	return fmt.Sprintf("%.4f", m.Stderr)
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
