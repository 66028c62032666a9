package main

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	goevalpkg "github.com/goeval/goeval"
	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/report"
	"github.com/goeval/goeval/tasks"
)

// TestRunAsLibrary: a Go program that builds the values goeval run's plan
// holds — engine.Options, goeval.Options, a typed report.RunInfo — writes
// the results and samples files goeval run writes (all but the wall clock
// and the work done, which readRun leaves out).
func TestRunAsLibrary(t *testing.T) {
	dir := t.TempDir()
	model, data := resumeSetup(t, dir)
	cli, lib := filepath.Join(dir, "cli"), filepath.Join(dir, "lib")
	args := []string{"run", "--model", model, "--tasks", strings.Join(resumeTasks, ","), "--limit", "3", "--data-dir", data,
		"--system-instruction", "Be brief.", "--seed", "1,2,3,4", "--output-path", cli, "--log-samples"}
	if _, stderr, code := goeval(t, args...); code != 0 {
		t.Fatalf("goeval run: exit %d: %s", code, stderr)
	}

	m, err := engine.Open(model, engine.Options{Device: "cpu", DType: "float32"})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	opts := goevalpkg.Options{Tasks: resumeTasks, Index: tasks.NewIndex(), Task: tasks.DefaultOptions(), LogSamples: true,
		BootstrapIters: 100000}
	opts.Task.DataDir, opts.Task.Limit, opts.Task.SystemInstruction, opts.Task.Seed = data, 3, "Be brief.", 4
	res, err := goevalpkg.Evaluate(context.Background(), m, opts)
	if err != nil {
		t.Fatal(err)
	}
	r1, r2, r3, r4 := int64(1), int64(2), int64(3), int64(4)
	facts, timing := m.Info(), timingOf(m.Work())
	info := report.RunInfo{ModelName: model, Model: &facts, Timing: &timing,
		Prompt: report.PromptSettings{SystemInstruction: "Be brief."},
		Settings: report.RunSettings{Model: model, DType: "float32", BatchSize: "auto", Device: "cpu", Limit: 3,
			BootstrapIters: 100000, Seeds: report.Seeds{Random: &r1, NumPy: &r2, Torch: &r3, Fewshot: &r4},
			Checkpoint: true, NumParameters: int64(m.NumParameters())}}
	rep, samples, err := report.FromResults(res, info)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := report.WriteRun(lib, rep, samples, res.Start); err != nil {
		t.Fatal(err)
	}

	folder := report.SanitizeModelName(model)
	cliRes, cliSamples := readRun(t, filepath.Join(cli, folder))
	libRes, libSamples := readRun(t, filepath.Join(lib, folder))
	if !reflect.DeepEqual(cliRes, libRes) {
		for k := range cliRes {
			if !reflect.DeepEqual(cliRes[k], libRes[k]) {
				t.Errorf("results key %q: goeval run wrote %v, the library %v", k, cliRes[k], libRes[k])
			}
		}
		t.Fatal("the results files differ")
	}
	for task, s := range cliSamples {
		if libSamples[task] != s {
			t.Errorf("samples of %s differ", task)
		}
	}
}
