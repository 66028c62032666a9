package main

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/goeval/goeval/report"
)

func verdict(v report.SampleView) string {
	switch {
	case !v.HasScore:
		return "?"
	case math.IsNaN(v.Score):
		return "NaN (non-finite log-probs)"
	case v.Correct():
		return "RIGHT"
	}
	return "WRONG"
}

// printView prints one doc; with compare, the other run's pick or answer.
func printView(w io.Writer, v, other report.SampleView, compare bool) {
	fmt.Fprintf(w, "── doc %d  %s=%s  %s", v.DocID, v.Metric, report.Str(v.Score), verdict(v))
	if compare {
		fmt.Fprintf(w, "  (other run: %s)", verdict(other))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, indent(tail(v.Prompt, 600)))
	if len(v.Choices) > 0 {
		for i, c := range v.Choices {
			m := "   "
			if i == v.Pick {
				m = " > "
			}
			g := " "
			if i == v.Gold {
				g = "*"
			}
			extra := ""
			if compare && i == other.Pick {
				extra = "  ← other run's pick"
			}
			fmt.Fprintf(w, "%s%s %-30q ll=%s%s\n", m, g, c, llText(v.LLs[i]), extra)
		}
	} else {
		fmt.Fprintf(w, "  target:   %q\n  response: %q\n  answer:   %q\n", tail(v.Target, 200), v.Response, v.Filtered)
		if compare {
			fmt.Fprintf(w, "  other:    %q\n", other.Filtered)
		}
	}
	fmt.Fprintln(w)
}

// llText prints a log-likelihood with 4 decimals, or nan/inf/-inf.
func llText(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return report.Str(x)
	}
	return fmt.Sprintf("%.4f", x)
}

func indent(s string) string { return "  | " + strings.ReplaceAll(s, "\n", "\n  | ") }

func tail(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n:])
}

// printStats prints the task's aggregate metrics from the results file,
// the right/wrong counts, and for multiple choice how often each choice
// position is gold and picked (a position bias shows here).
func printStats(w io.Writer, run *report.Run, task string, views []report.SampleView) {
	fmt.Fprintf(w, "task %s in %s\n", task, run.ResultsPath)
	if m, ok := run.Results.Results.Get(task); ok {
		for _, k := range m.Keys() {
			if strings.Contains(k, ",") {
				v, _ := m.Get(k)
				fmt.Fprintf(w, "  %-36s %v\n", k, report.Str(v))
			}
		}
	}
	right, scored, nan := 0, 0, 0
	gold, pick := map[int]int{}, map[int]int{}
	for _, v := range views {
		if v.HasScore && math.IsNaN(v.Score) {
			nan++
		} else if v.HasScore {
			scored++
			if v.Correct() {
				right++
			}
		}
		if len(v.Choices) > 0 {
			gold[v.Gold]++
			if v.Pick >= 0 { // -1: NaN log-likelihoods, no pick
				pick[v.Pick]++
			}
		}
	}
	nanText := ""
	if nan > 0 {
		nanText = fmt.Sprintf(", NaN %d (non-finite log-probs)", nan)
	}
	fmt.Fprintf(w, "  docs %d, right %d, wrong %d%s (first metric per line)\n", len(views), right, scored-right, nanText)
	if len(gold) > 0 {
		var idx []int
		for k := range gold {
			idx = append(idx, k)
		}
		for k := range pick {
			if _, ok := gold[k]; !ok {
				idx = append(idx, k)
			}
		}
		sort.Ints(idx)
		fmt.Fprintf(w, "  choice position: gold / picked\n")
		for _, k := range idx {
			fmt.Fprintf(w, "    %d: %d / %d\n", k, gold[k], pick[k])
		}
	}
	fmt.Fprintln(w)
}
