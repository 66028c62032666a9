package report

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/py"
)

// The fixture files under testdata/lmeval were written by lm-eval itself
// (parity/report/lmeval_fixture.py); goeval must read them and write them
// back byte for byte.
const fixtureDate = "2023-11-14T22-13-20.000001"

func fixturePath(model, kind string) string {
	return filepath.Join("testdata", "lmeval", model, kind+"_"+fixtureDate+ext(kind))
}

func ext(kind string) string {
	if kind == "results" {
		return ".json"
	}
	return ".jsonl"
}

func TestResultsRoundTripLMEval(t *testing.T) {
	for _, model := range []string{"fixture__base", "fixture__tuned"} {
		path := fixturePath(model, "results")
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ReadResults(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := res.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: re-encoded results differ from lm-eval's bytes:\n%s", path, firstDiff(got, want))
		}
		if v, ok := res.Metric("tiny_mc", "acc,none"); !ok || v <= 0 || v >= 1 {
			t.Errorf("%s: acc,none = %v, %v", path, v, ok)
		}
		if _, ok := res.Metric("tiny_ppl", "bits_per_byte_stderr,none"); ok {
			t.Errorf("%s: \"N/A\" stderr must not read as a number", path)
		}
		if res.ModelName == "" || res.Date != 1700000000.0 {
			t.Errorf("%s: model_name %q date %v", path, res.ModelName, res.Date)
		}
	}
}

func TestSamplesRoundTripAndHashes(t *testing.T) {
	res, err := ReadResults(fixturePath("fixture__tuned", "results"))
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range []string{"tiny_mc", "tiny_gen", "tiny_ppl"} {
		path := fixturePath("fixture__tuned", "samples_"+task)
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		samples, err := ReadSamples(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(raw), "\n")
		for i, s := range samples {
			got, err := s.EncodeLine()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != lines[i] {
				t.Fatalf("%s line %d re-encoded differs:\n%s", path, i+1, firstDiff(got, []byte(lines[i])))
			}
			fresh := s
			fresh.DocHash, fresh.PromptHash, fresh.TargetHash = "", "", ""
			if err := fresh.FillHashes(); err != nil {
				t.Fatal(err)
			}
			if fresh.DocHash != s.DocHash || fresh.PromptHash != s.PromptHash || fresh.TargetHash != s.TargetHash {
				t.Errorf("%s line %d: hashes %s/%s/%s, lm-eval wrote %s/%s/%s", path, i+1,
					fresh.DocHash, fresh.PromptHash, fresh.TargetHash, s.DocHash, s.PromptHash, s.TargetHash)
			}
		}
		want, _ := res.TaskHashes.Get(task)
		if got := TaskHash(samples); got != want {
			t.Errorf("task hash of %s = %s, lm-eval wrote %s", task, got, want)
		}
	}
}

// TestWriteRunMatchesLMEval writes the fixture run again with WriteRun and
// expects lm-eval's bytes and lm-eval's file names.
func TestWriteRunMatchesLMEval(t *testing.T) {
	res, err := ReadResults(fixturePath("fixture__base", "results"))
	if err != nil {
		t.Fatal(err)
	}
	samples := map[string][]Sample{}
	for _, task := range res.TaskNames() {
		s, err := ReadSamples(fixturePath("fixture__base", "samples_"+task))
		if err != nil {
			t.Fatal(err)
		}
		for i := range s { // WriteRun must recompute the hashes
			s[i].DocHash, s[i].PromptHash, s[i].TargetHash = "", "", ""
		}
		samples[task] = s
	}
	res.TaskHashes = py.Map[string]{}
	res.ModelNameSanitized = ""
	ts := time.Date(2023, 11, 14, 22, 13, 20, 1000, time.UTC)
	dir := t.TempDir()
	path, err := WriteRun(dir, res, samples, ts)
	if err != nil {
		t.Fatal(err)
	}
	wantPath := filepath.Join(dir, "fixture__base", "results_"+fixtureDate+".json")
	if path != wantPath {
		t.Fatalf("results path %s, want %s", path, wantPath)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 4 {
		t.Errorf("want 4 files (no temporaries), got %d", len(entries))
	}
	for _, e := range entries {
		got, _ := os.ReadFile(filepath.Join(filepath.Dir(path), e.Name()))
		want, err := os.ReadFile(filepath.Join("testdata", "lmeval", "fixture__base", e.Name()))
		if err != nil {
			t.Errorf("unexpected file %s", e.Name())
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from lm-eval's:\n%s", e.Name(), firstDiff(got, want))
		}
	}
}

func TestPyRepr(t *testing.T) {
	tenth := 0.1 // a variable, so 0.1+0.2 is computed in float64, not as an exact constant
	cases := []struct {
		f    float64
		want string
	}{
		{1, "1.0"}, {0.5, "0.5"}, {math.Copysign(0, -1), "-0.0"}, {0.0001, "0.0001"}, {0.00001, "1e-05"},
		{1.5e-7, "1.5e-07"}, {1e16, "1e+16"}, {1234567890123456, "1234567890123456.0"},
		{tenth + 2*tenth, "0.30000000000000004"}, {123.25, "123.25"}, {1e100, "1e+100"},
		{-2.5e-5, "-2.5e-05"}, {math.Inf(1), "inf"}, {math.NaN(), "nan"},
	}
	for _, c := range cases {
		if got := py.Repr(c.f); got != c.want {
			t.Errorf("py.Repr(%v) = %q, want %q", c.f, got, c.want)
		}
	}
}

func TestPyJSONStringsAndNesting(t *testing.T) {
	doc := py.NewMap[any]()
	doc.Set("q", "a<b>&c\u2028é\x01\"\\\n")
	doc.Set("n", []any{1, 2.0, json.Number("3"), true, nil})
	doc.Set("e", py.NewMap[any]())
	got, err := py.JSON(doc, false)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"q": "a<b>&c` + "\u2028" + `é\u0001\"\\\n", "n": [1, 2.0, 3, true, null], "e": {}}`
	if string(got) != want {
		t.Errorf("compact:\n got %s\nwant %s", got, want)
	}
	got, _ = py.JSON(doc, true)
	want = "{\n  \"q\": \"a<b>&c\u2028é\\u0001\\\"\\\\\\n\",\n  \"n\": [\n    1,\n    2.0,\n    3,\n    true,\n    null\n  ],\n  \"e\": {}\n}"
	if string(got) != want {
		t.Errorf("indent:\n got %s\nwant %s", got, want)
	}
}

func TestNamingHelpers(t *testing.T) {
	if got := SanitizeModelName(`EleutherAI/pythia-160m`); got != "EleutherAI__pythia-160m" {
		t.Errorf("sanitize: %s", got)
	}
	if got := SanitizeModelName(`a:/b[c]`); got != "a__b__c__" {
		t.Errorf("sanitize runs: %s", got)
	}
	ts := time.Date(2026, 8, 21, 10, 56, 54, 123456789, time.UTC)
	if got := DateID(ts); got != "2026-08-21T10-56-54.123456" {
		t.Errorf("DateID: %s", got)
	}
	if got := DateID(ts.Truncate(time.Second)); got != "2026-08-21T10-56-54" {
		t.Errorf("DateID whole second: %s", got)
	}
	p, dir := RunPaths("out/x.json", "m", "D")
	if p != filepath.Join("out", "x_D.json") || dir != "out" {
		t.Errorf("RunPaths .json: %s %s", p, dir)
	}
}

func TestReadErrorsAreBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "results_x.json")
	os.WriteFile(bad, []byte(`{"config": {}}`), 0o644)
	for _, path := range []string{filepath.Join(dir, "missing.json"), bad} {
		_, err := ReadResults(path)
		if err == nil || !errs.IsBadInput(err) || !strings.Contains(err.Error(), path) {
			t.Errorf("ReadResults(%s) = %v; want a bad-input error naming the file", path, err)
		}
	}
	lines := filepath.Join(dir, "samples_t.jsonl")
	os.WriteFile(lines, []byte("{\"doc_id\": 0}\n{oops\n"), 0o644)
	_, err := ReadSamples(lines)
	if err == nil || !errs.IsBadInput(err) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("ReadSamples = %v; want a bad-input error naming line 2", err)
	}
}

// firstDiff shows a little context around the first differing byte.
func firstDiff(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(0, i-60)
	return "at byte " + itoa(i) + "\n got …" + string(got[lo:min(len(got), i+60)]) + "\nwant …" + string(want[lo:min(len(want), i+60)])
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
