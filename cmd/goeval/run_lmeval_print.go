package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/goeval/goeval/report"
)

// printWriteOut is --write-out: each task's first document's prompt and
// target (lm-eval prints them while building requests).
func printWriteOut(w io.Writer, samples map[string][]report.Sample) {
	tasks := make([]string, 0, len(samples))
	for t := range samples {
		tasks = append(tasks, t)
	}
	sort.Strings(tasks)
	for _, t := range tasks {
		if len(samples[t]) == 0 || len(samples[t][0].Arguments) == 0 {
			continue
		}
		first := samples[t][0]
		fmt.Fprintf(w, "Task: %s; document %d; context prompt (starting on next line):\n%v\n(end of prompt on previous line)\n",
			t, first.DocID, first.Arguments[0][0])
		fmt.Fprintf(w, "target string or answer choice index (starting on next line):\n%s\n(end of target on previous line)\n", first.Target)
	}
}

// printConfigs is --show-config: the task configs as the results file
// holds them, indented.
func printConfigs(w io.Writer, rep *report.Results) error {
	raw, err := json.Marshal(&rep.Configs)
	if err != nil {
		return fmt.Errorf("show config: %w", err)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return fmt.Errorf("show config: %w", err)
	}
	fmt.Fprintf(w, "task configs:\n%s\n", b.Bytes())
	return nil
}
