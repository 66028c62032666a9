package goeval_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/goeval/goeval"
	"github.com/goeval/goeval/lm/lmtest"
	"github.com/goeval/goeval/synth"
	"github.com/goeval/goeval/tasks"
)

// A Go training loop evaluates in-process: any lm.LM works (here a
// deterministic fake; in practice engine.Open(dir, engine.Options{})).
func ExampleEvaluate() {
	data, err := os.MkdirTemp("", "goeval-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(data)
	if _, err := synth.Data("arc_easy", data, synth.DataOptions{N: 20}); err != nil {
		log.Fatal(err)
	}
	opts := goeval.Options{Tasks: []string{"arc_easy"}, Task: tasks.DefaultOptions()}
	opts.Task.DataDir = data
	opts.Task.Limit = 10
	res, err := goeval.Evaluate(context.Background(), lmtest.New(), opts)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range res.Tasks {
		acc, _ := t.Metric("acc", "none")
		fmt.Printf("%s: %d docs, acc %.1f ± %.3f\n", t.Name, t.SampleLen, acc.Value, acc.Stderr)
	}
	// Output:
	// arc_easy: 10 docs, acc 0.5 ± 0.167
}
