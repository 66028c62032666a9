package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// tableGolden is testdata/tables.json: what lm-eval 0.4.13's make_table
// printed for the repository's results files and for generated results
// (parity/report/table_golden.py).
type tableGolden struct {
	Files map[string]string
	Cases []struct {
		Name    string
		Results string // the results file's text (it may hold NaN)
		Table   string
	}
}

func TestSummaryTable(t *testing.T) {
	raw, err := os.ReadFile("testdata/tables.json")
	if err != nil {
		t.Fatal(err)
	}
	var g tableGolden
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Files) < 10 || len(g.Cases) < 100 {
		t.Fatalf("golden holds %d files and %d cases; regenerate it", len(g.Files), len(g.Cases))
	}
	for rel, want := range g.Files {
		rep, err := ReadResults(filepath.Join("..", rel))
		if err != nil {
			t.Fatal(err)
		}
		if got := SummaryTable(rep); got != want {
			t.Errorf("%s: table differs from lm-eval's\ngot:\n%s\nwant:\n%s", rel, got, want)
		}
	}
	for _, c := range g.Cases {
		var rep Results
		if err := rep.UnmarshalJSON([]byte(c.Results)); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if got := SummaryTable(&rep); got != c.Table {
			t.Errorf("%s: table differs from lm-eval's\ngot:\n%s\nwant:\n%s", c.Name, got, c.Table)
		}
	}
}

// TestRunLine: the line above the tables, as lm-eval 0.4.13's CLI prints it
// (`hf ({'pretrained': '/tmp/dm/m', 'dtype': 'float32'}), gen_kwargs:
// ({'max_gen_toks': 8}), limit: 2.0, num_fewshot: None, batch_size: 1`
// from lm_eval run with those arguments), from a results file's config.
func TestRunLine(t *testing.T) {
	var rep Results
	raw := `{"results": {}, "config": {"model": "hf", "model_args": {"pretrained": "/tmp/dm/m", "dtype": "float32"},
		"batch_size": 1, "batch_sizes": [], "limit": 2.0, "gen_kwargs": {"max_gen_toks": 8}}}`
	if err := rep.UnmarshalJSON([]byte(raw)); err != nil {
		t.Fatal(err)
	}
	want := "hf ({'pretrained': '/tmp/dm/m', 'dtype': 'float32'}), gen_kwargs: ({'max_gen_toks': 8}), limit: 2.0, num_fewshot: None, batch_size: 1\n"
	if got := RunLine(&rep, -1); got != want {
		t.Errorf("RunLine:\n got %q\nwant %q", got, want)
	}
	rep.Config.Set("batch_size", "auto:4")
	rep.Config.Set("batch_sizes", []any{json.Number("64"), json.Number("32")})
	rep.Config.Set("limit", nil)
	want = "hf ({'pretrained': '/tmp/dm/m', 'dtype': 'float32'}), gen_kwargs: ({'max_gen_toks': 8}), limit: None, num_fewshot: 5, batch_size: auto:4 (64,32)\n"
	if got := RunLine(&rep, 5); got != want {
		t.Errorf("RunLine:\n got %q\nwant %q", got, want)
	}
}
