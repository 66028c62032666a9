package main

import (
	"encoding/csv"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lm-eval's own files (written by parity/report/lmeval_fixture.py).
var (
	lmevalDir = filepath.Join("..", "..", "report", "testdata", "lmeval")
	baseRun   = filepath.Join(lmevalDir, "fixture__base")
	tunedRun  = filepath.Join(lmevalDir, "fixture__tuned")
)

func TestCompareCLI(t *testing.T) {
	out, stderr, code := goeval(t, "compare", baseRun, tunedRun)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"tiny_mc", "acc,none", "mcnemar", "better*", "Improvements of fixture/tuned vs fixture/base: 5", "Regressions of fixture/tuned vs fixture/base: 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	out, _, code = goeval(t, "compare", "--format", "csv", "--bootstrap-iters", "200", baseRun, tunedRun)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || len(recs) != 8 {
		t.Errorf("csv: exit %d, %v, %d records", code, err, len(recs))
	}
	out, _, code = goeval(t, "compare", "--format", "json", lmevalDir) // a folder with both models
	var doc map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || len(doc["runs"].([]any)) != 2 {
		t.Errorf("json over a folder: exit %d, %.200s", code, out)
	}
	out, _, code = goeval(t, "compare", "--format", "markdown", baseRun, tunedRun)
	if code != 0 || !strings.Contains(out, "|---") {
		t.Errorf("markdown: exit %d", code)
	}
}

func TestShowCLI(t *testing.T) {
	out, stderr, code := goeval(t, "show", tunedRun, "--task", "tiny_mc", "-n", "2", "--stats")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"acc,none", "choice position", "── doc 0", " > ", "2 of 40 docs shown"} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	out, _, code = goeval(t, "show", tunedRun, "--task", "tiny_gen", "--changed-vs", baseRun, "-n", "0")
	// Tuned alone is right on docs 1, 5, 7 and 11 (see report/compare_test.go).
	if code != 0 || !strings.Contains(out, "4 of 12 docs shown") || !strings.Contains(out, "── doc 5") {
		t.Errorf("changed-vs: exit %d\n%s", code, out)
	}
	out, _, code = goeval(t, "show", baseRun, "--task", "tiny_mc", "--wrong", "-n", "0")
	if code != 0 || !strings.Contains(out, "37 of 40 docs shown") || strings.Contains(out, "RIGHT") {
		t.Errorf("wrong: exit %d (base acc is 3/40)\n%.300s", code, out)
	}
	// Without --task: the tables lm-eval printed for that run (its own
	// make_table over the file, report/testdata/tables.json).
	raw, err := os.ReadFile("../../report/testdata/tables.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden struct{ Files map[string]string }
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	want := golden.Files["report/testdata/lmeval/fixture__base/results_2023-11-14T22-13-20.000001.json"]
	if out, _, code = goeval(t, "show", baseRun); code != 0 || want == "" || out != want {
		t.Errorf("show without --task: exit %d\n%s\nwant lm-eval's tables:\n%s", code, out, want)
	}
}

func TestReportAndPlotCLI(t *testing.T) {
	dir := t.TempDir()
	html := filepath.Join(dir, "r.html")
	_, stderr, code := goeval(t, "report", "-o", html, "--bootstrap-iters", "200", tunedRun, baseRun)
	page, _ := os.ReadFile(html)
	if code != 0 || !strings.Contains(string(page), "<svg") || !strings.Contains(string(page), "Largest significant regressions") {
		t.Fatalf("report: exit %d %s", code, stderr)
	}
	pngPath := filepath.Join(dir, "s.png")
	if _, stderr, code := goeval(t, "plot", "-o", pngPath, baseRun, tunedRun); code != 0 {
		t.Fatalf("plot: exit %d %s", code, stderr)
	}
	f, _ := os.Open(pngPath)
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("plot png: %v", err)
	}
}

func TestReportCommandsBadInput(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	cases := [][]string{
		{"compare", baseRun, missing},
		{"compare", baseRun},
		{"compare", "--format", "xml", baseRun, tunedRun},
		{"show", missing, "--task", "tiny_mc"},
		{"show", baseRun, "--task", "no_such_task"},
		{"show", missing},
		{"report", "-o", filepath.Join(t.TempDir(), "r.html"), missing},
		{"plot", "-o", filepath.Join(t.TempDir(), "x.gif"), baseRun},
	}
	for _, args := range cases {
		out, stderr, code := goeval(t, args...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != 2 || len(lines) != 1 || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %.100q; want exit 2 and one line", args, code, stderr, out)
		}
	}
}
