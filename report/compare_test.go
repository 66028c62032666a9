package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeval/goeval/metrics"
)

const (
	baseDir  = "testdata/lmeval/fixture__base"
	tunedDir = "testdata/lmeval/fixture__tuned"
)

func compareFixture(t *testing.T, paths ...string) *Comparison {
	t.Helper()
	runs, err := LoadAll(paths)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare(runs, CompareOptions{Seed: 1, BootstrapIters: 2000})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func findRow(t *testing.T, c *Comparison, task, key string) Row {
	t.Helper()
	for _, r := range c.Rows {
		if r.Task == task && r.Key == key {
			return r
		}
	}
	t.Fatalf("no row %s %s", task, key)
	return Row{}
}

// TestCompareLMEvalFixture reads lm-eval's own files. tiny_gen by
// construction: the base model is right on even docs, the tuned one on even
// docs and on docs not divisible by 3, so of 12 docs the tuned model alone
// is right on 1, 5, 7, 11: b=0, c=4, p = 2/16 = 0.125, not significant.
func TestCompareLMEvalFixture(t *testing.T) {
	c := compareFixture(t, baseDir, tunedDir)
	if len(c.Runs) != 2 || c.Runs[0] != "fixture/base" {
		t.Fatalf("runs %v", c.Runs)
	}
	gen := findRow(t, c, "tiny_gen", "exact_match,strict-match").Changes[1]
	if gen.Test != "mcnemar" || gen.B != 0 || gen.C != 4 || gen.P != 0.125 || gen.Significant || gen.N != 12 {
		t.Errorf("tiny_gen change %+v", gen)
	}
	acc := findRow(t, c, "tiny_mc", "acc,none")
	ch := acc.Changes[1]
	// The discordant counts must agree with the results file: c-b = Δacc·n.
	if got, want := ch.C-ch.B, int(math.Round(ch.Abs*40)); got != want || ch.N != 40 {
		t.Errorf("acc: c-b = %d, Δ·n = %d (N=%d)", got, want, ch.N)
	}
	if ch.P != metrics.McNemarExact(ch.B, ch.C) || !ch.Significant || ch.Verdict != "improved" {
		t.Errorf("acc change %+v", ch)
	}
	if math.Abs(ch.Rel-ch.Abs/acc.Cells[0].Value) > 1e-12 {
		t.Errorf("relative change %v", ch.Rel)
	}
	ppl := findRow(t, c, "tiny_ppl", "word_perplexity,none")
	pc := ppl.Changes[1]
	if ppl.HigherIsBetter || pc.Test != "bootstrap" || pc.Abs >= 0 || pc.Verdict != "improved" {
		t.Errorf("perplexity row %+v change %+v", ppl, pc)
	}
	// The bootstrap's full-data statistic recomputes lm-eval's aggregate.
	if !(pc.Low <= pc.Abs && pc.Abs <= pc.High) {
		t.Errorf("interval [%v,%v] misses %v", pc.Low, pc.High, pc.Abs)
	}
	s := c.Summaries[0]
	if s.Improved != 5 || s.Regressed != 0 || s.NPpl != 2 || s.NScore != 4 {
		t.Errorf("summary %+v", s)
	}
}

func TestCompareReversedFindsRegressions(t *testing.T) {
	c := compareFixture(t, tunedDir, baseDir)
	if got := c.Summaries[0].Regressed; got != 5 {
		t.Errorf("regressions %d, want 5", got)
	}
	var b bytes.Buffer
	c.Write(&b, "table")
	if !strings.Contains(b.String(), "Regressions of fixture/base vs fixture/tuned: 5") {
		t.Errorf("table lacks the regression list:\n%s", b.String())
	}
}

func TestCompareWithoutSamplesUsesZTest(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{baseDir, tunedDir} {
		src := filepath.Join(d, "results_"+fixtureDate+".json")
		data, _ := os.ReadFile(src)
		os.MkdirAll(filepath.Join(dir, filepath.Base(d)), 0o755)
		os.WriteFile(filepath.Join(dir, filepath.Base(d), filepath.Base(src)), data, 0o644)
	}
	c := compareFixture(t, filepath.Join(dir, "fixture__base"), filepath.Join(dir, "fixture__tuned"))
	ch := findRow(t, c, "tiny_mc", "acc,none").Changes[1]
	// z = 0.6 / sqrt(0.0422² + 0.075²) ≈ 6.97 → p far below 0.05.
	if ch.Test != "z" || !ch.Significant {
		t.Errorf("z fallback %+v", ch)
	}
	if ppl := findRow(t, c, "tiny_ppl", "word_perplexity,none").Changes[1]; ppl.Test != "" || ppl.Note != "no samples file" {
		t.Errorf("N/A stderr without samples must not be tested: %+v", ppl)
	}
}

func TestCompareFormats(t *testing.T) {
	c := compareFixture(t, baseDir, tunedDir)
	var b bytes.Buffer
	if err := c.Write(&b, "csv"); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(recs) != 1+len(c.Rows) || recs[1][0] != "tiny_mc" {
		t.Errorf("csv: %v, %d records", err, len(recs))
	}
	b.Reset()
	if err := c.Write(&b, "json"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Runs []string
		Rows []struct {
			Task    string
			Changes []struct{ Test, Verdict string }
		}
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil || len(doc.Rows) != len(c.Rows) || doc.Rows[0].Changes[0].Test != "mcnemar" {
		t.Errorf("json: %v %+v", err, doc)
	}
	b.Reset()
	c.Write(&b, "markdown")
	if !strings.Contains(b.String(), "| tiny_mc  | acc,none ") || !strings.Contains(b.String(), "|---") {
		t.Errorf("markdown:\n%s", b.String())
	}
	if err := c.Write(&b, "xml"); err == nil {
		t.Error("unknown format accepted")
	}
}

func TestLoadRunsFindsNewestPerModel(t *testing.T) {
	runs, err := LoadRuns("testdata/lmeval")
	if err != nil || len(runs) != 2 || len(runs[0].SamplesPath) != 3 {
		t.Fatalf("LoadRuns: %v %d", err, len(runs))
	}
	dir := t.TempDir()
	old := filepath.Join(dir, "m", "results_2020-01-01T00-00-00.json")
	os.MkdirAll(filepath.Dir(old), 0o755)
	data, _ := os.ReadFile(filepath.Join(baseDir, "results_"+fixtureDate+".json"))
	os.WriteFile(old, data, 0o644)
	newer := filepath.Join(dir, "m", "results_2021-01-01T00-00-00.json")
	os.WriteFile(newer, data, 0o644)
	runs, err = LoadRuns(dir)
	if err != nil || len(runs) != 1 || runs[0].ResultsPath != newer {
		t.Errorf("newest: %v %v", err, runs)
	}
	if _, err := LoadRuns(filepath.Join(dir, "nope")); err == nil {
		t.Error("missing path accepted")
	}
}
