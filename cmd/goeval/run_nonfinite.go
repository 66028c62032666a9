package main

import (
	"fmt"
	"os"
	"strings"

	goevalpkg "github.com/goeval/goeval"
)

// failOnNonFiniteHelp is the --fail-on-nonfinite flag's help.
const failOnNonFiniteHelp = "exit with status 1 (after writing the results files) when any request's log-prob was NaN or ±Inf, i.e. the model's weights or activations are broken; by default such a run prints one warning per affected task, writes NaN metrics and exits 0"

// nonFiniteState collects the tasks with non-finite log-probs over the
// models of one goeval run (a sweep or adapters evaluate several).
type nonFiniteState struct {
	models int      // models evaluated so far
	tasks  []string // "model: task"
	names  []string // "task"
}

// note prints res's non-finite warnings to stderr and remembers the tasks.
func (s *nonFiniteState) note(model string, res *goevalpkg.Results) {
	s.models++
	for _, w := range res.NonFiniteWarnings() {
		fmt.Fprintln(os.Stderr, w)
	}
	for _, t := range res.NonFiniteTasks() {
		s.tasks = append(s.tasks, model+": "+t)
		s.names = append(s.names, t)
	}
}

// exit is the run's error: err itself, or with fail (--fail-on-nonfinite)
// and non-finite log-probs, one line naming the tasks.
func (s *nonFiniteState) exit(err error, fail bool) error {
	if err != nil || !fail || len(s.tasks) == 0 {
		return err
	}
	names := s.names
	if s.models > 1 { // a sweep or adapters: say which model
		names = s.tasks
	}
	return fmt.Errorf("--fail-on-nonfinite: non-finite log-probs (NaN/Inf) in task %s; their metrics are NaN (results were written)", strings.Join(names, ", "))
}
