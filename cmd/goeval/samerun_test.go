package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// timingKeys match the results-file keys that differ between two runs of
// the same evaluation (date, total time, the engine's work), with their
// line (or block) in the indented file.
var timingKeys = regexp.MustCompile(`(?s)\n  "date": [^\n]*|\n  "total_evaluation_time_seconds": [^\n]*|\n  "goeval_timing": \{.*?\n  \},?`)

// cmdSamerun is "samerun DIR1 DIR2": the one results file of each folder
// is the same bytes once the timing keys are dropped, and each task's
// samples file is the same bytes (their names differ by date).
func cmdSamerun(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: samerun DIR1 DIR2")
	}
	a, b := runFiles(ts, args[0]), runFiles(ts, args[1])
	if len(a) != len(b) {
		ts.Fatalf("%s holds %d files, %s %d", args[0], len(a), args[1], len(b))
	}
	for name, data := range a {
		if other, ok := b[name]; !ok || !bytes.Equal(data, other) {
			ts.Fatalf("%s differs between %s and %s", name, args[0], args[1])
		}
	}
}

// runFiles are a folder's results file (timing keys dropped) and samples
// files, by name without the date.
func runFiles(ts *testscript.TestScript, dir string) map[string][]byte {
	out := map[string][]byte{}
	files, err := filepath.Glob(filepath.Join(ts.MkAbs(dir), "*_*.json*"))
	ts.Check(err)
	for _, f := range files {
		data, err := os.ReadFile(f)
		ts.Check(err)
		name := filepath.Base(f)
		switch {
		case strings.HasPrefix(name, "results_"):
			name, data = "results", timingKeys.ReplaceAll(data, nil)
		case strings.HasPrefix(name, "samples_"):
			name = name[:strings.LastIndex(name, "_")]
		default:
			continue
		}
		if _, dup := out[name]; dup {
			ts.Fatalf("%s holds two %s files", dir, name)
		}
		out[name] = data
	}
	if out["results"] == nil {
		ts.Fatalf("%s holds no results file", dir)
	}
	return out
}

// cmdReplace is "replace FILE OLD NEW": FILE with every OLD replaced by NEW
// (OLD must occur).
func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace FILE OLD NEW")
	}
	path := ts.MkAbs(args[0])
	data, err := os.ReadFile(path)
	ts.Check(err)
	if !bytes.Contains(data, []byte(args[1])) {
		ts.Fatalf("%s does not contain %q", args[0], args[1])
	}
	ts.Check(os.WriteFile(path, bytes.ReplaceAll(data, []byte(args[1]), []byte(args[2])), 0o644))
}
