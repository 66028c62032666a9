package tasks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/synth"
	"github.com/goeval/goeval/tasks"
	"github.com/parquet-go/parquet-go"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

const lambadaJSONL = `{"text": "the cat sat on the mat"}
{"text": "Zoë went to café"}
`

func buildLambada(t *testing.T, opts tasks.Options) ([]tasks.Instance, error) {
	t.Helper()
	task, err := tasks.NewIndex().Get("lambada_openai")
	if err != nil {
		t.Fatal(err)
	}
	return task.Build(opts)
}

// TestLayouts: jsonl, refs/convert/parquet, data/ and the HF hub cache.
func TestLayouts(t *testing.T) {
	t.Setenv("HF_HOME", t.TempDir())
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "EleutherAI/lambada_openai/default/test.jsonl"), lambadaJSONL)
	opts := tasks.DefaultOptions()
	opts.DataDir = root
	insts, err := buildLambada(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(insts) != 2 || insts[1].Requests[0].Context != "Zoë went to" || insts[1].Requests[0].Continuation != " café" {
		t.Fatalf("jsonl layout: %+v", insts)
	}
	// NAME without ORG.
	root2 := t.TempDir()
	writeFile(t, filepath.Join(root2, "lambada_openai/default/test.jsonl"), lambadaJSONL)
	opts.DataDir = root2
	if insts, err = buildLambada(t, opts); err != nil || len(insts) != 2 {
		t.Fatalf("NAME layout: %v", err)
	}
	// Parquet: synth's data/ layout, then moved to refs/convert and the hub cache.
	synthDir := t.TempDir()
	if _, err := synth.Data("lambada_openai", synthDir, synth.DataOptions{N: 5}); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(synthDir, "EleutherAI/lambada_openai/data/test-00000-of-00001.parquet")
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	hf := t.TempDir()
	t.Setenv("HF_HOME", hf)
	writeFile(t, filepath.Join(hf, "hub/datasets--EleutherAI--lambada_openai/snapshots/abc123/default/test/0000.parquet"), string(raw))
	opts.DataDir = ""
	if insts, err = buildLambada(t, opts); err != nil || len(insts) != 5 {
		t.Fatalf("hub cache + refs/convert layout: %v (%d docs)", err, len(insts))
	}
}

func TestMissingFilesListsPaths(t *testing.T) {
	t.Setenv("HF_HOME", t.TempDir())
	opts := tasks.DefaultOptions()
	opts.DataDir = t.TempDir()
	_, err := buildLambada(t, opts)
	if err == nil || !errs.IsBadInput(err) {
		t.Fatalf("want bad input, got %v", err)
	}
	for _, want := range []string{opts.DataDir, "test.jsonl", "test-*.parquet", "datasets--EleutherAI--lambada_openai"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestMalformedJSONL(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "EleutherAI/lambada_openai/default/test.jsonl")
	writeFile(t, path, lambadaJSONL+"{\"text\": oops}\n")
	opts := tasks.DefaultOptions()
	opts.DataDir = root
	_, err := buildLambada(t, opts)
	if err == nil || !errs.IsBadInput(err) || !strings.Contains(err.Error(), path+" line 3") {
		t.Fatalf("want bad input naming %s line 3, got %v", path, err)
	}
	// Well-formed JSON, wrong field type: names the file and row.
	writeFile(t, path, lambadaJSONL+"{\"text\": 7}\n")
	_, err = buildLambada(t, opts)
	if err == nil || !errs.IsBadInput(err) || !strings.Contains(err.Error(), path+" row 2") || !strings.Contains(err.Error(), `"text"`) {
		t.Fatalf("want bad input naming row 2 and field text, got %v", err)
	}
}

func TestMalformedParquet(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "EleutherAI/lambada_openai/data/test-00000-of-00001.parquet")
	writeFile(t, path, "PAR1 this is not parquet")
	opts := tasks.DefaultOptions()
	opts.DataDir = root
	_, err := buildLambada(t, opts)
	if err == nil || !errs.IsBadInput(err) || !strings.Contains(err.Error(), path) {
		t.Fatalf("want bad input naming %s, got %v", path, err)
	}
	// Valid parquet with the wrong schema (gsm8k rows for hellaswag).
	synthDir := t.TempDir()
	if _, err := synth.Data("gsm8k", synthDir, synth.DataOptions{N: 3}); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(synthDir, "openai/gsm8k/main/test-00000-of-00001.parquet"))
	bad := filepath.Join(root, "Rowan/hellaswag/data/validation-00000-of-00001.parquet")
	writeFile(t, bad, string(raw))
	task, _ := tasks.NewIndex().Get("hellaswag")
	_, err = task.Build(opts)
	if err == nil || !errs.IsBadInput(err) || !strings.Contains(err.Error(), bad+" row 0") {
		t.Fatalf("want bad input naming %s row 0, got %v", bad, err)
	}
}

func TestUnknownTaskSuggests(t *testing.T) {
	for in, want := range map[string]string{"gsm8": "gsm8k", "hellaswg": "hellaswag", "mmlu_anatomi": "mmlu_anatomy", "MMLU_STEM": "mmlu_stem"} {
		_, err := tasks.NewIndex().Get(in)
		if err == nil || !errs.IsBadInput(err) || !strings.Contains(err.Error(), `did you mean "`+want+`"`) {
			t.Errorf("Get(%q) = %v, want a suggestion of %q", in, err, want)
		}
	}
}

func TestLimit(t *testing.T) {
	for _, c := range []struct {
		n     int
		limit float64
		want  int
	}{{24, 0, 24}, {24, 0.2, 5}, {10, 0.2, 2}, {24, 1, 1}, {24, 1.5, 1}, {24, 100, 24}, {3, 0.01, 1}} {
		got, err := tasks.LimitCount(c.n, c.limit)
		if err != nil || got != c.want {
			t.Errorf("LimitCount(%d, %v) = %d, %v; want %d", c.n, c.limit, got, err, c.want)
		}
	}
	if _, err := tasks.LimitCount(10, -0.5); err == nil || !errs.IsBadInput(err) {
		t.Errorf("negative limit: %v", err)
	}
}

func TestExpandGroups(t *testing.T) {
	// mmlu_anatomy is in mmlu: the union keeps it once; Expand refuses the
	// overlap as lm-eval does (cmd/goeval's groups_overlap.txtar).
	if _, _, err := tasks.NewIndex().Expand([]string{"mmlu", "gsm8k", "mmlu_anatomy"}); !errs.IsBadInput(err) {
		t.Fatalf("Expand of overlapping names: err = %v, want lm-eval's duplicate-task refusal", err)
	}
	ts, gs, err := tasks.NewIndex().ExpandUnion([]string{"mmlu", "gsm8k", "mmlu_anatomy"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 58 || len(gs) != 5 || ts[0].Name() != "mmlu_abstract_algebra" || ts[57].Name() != "gsm8k" {
		t.Fatalf("Expand: %d tasks, %d groups, first %s", len(ts), len(gs), ts[0].Name())
	}
	if _, _, err := tasks.NewIndex().Expand([]string{"hendrycks_math", "nope"}); err == nil {
		t.Fatal("unknown name accepted")
	}
}

// TestEmptyDataset: a valid parquet file without rows, an empty jsonl file
// and one of blank lines are bad input naming the file, not a parquet seek
// error or a run with no metrics.
func TestEmptyDataset(t *testing.T) {
	root := t.TempDir()
	pq := filepath.Join(root, "EleutherAI/lambada_openai/data/test-00000-of-00001.parquet")
	if err := os.MkdirAll(filepath.Dir(pq), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(pq)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[struct {
		Text string `parquet:"text"`
	}](f)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	opts := tasks.DefaultOptions()
	opts.DataDir = root
	_, err = buildLambada(t, opts)
	if !errs.IsBadInput(err) || !strings.Contains(err.Error(), "dataset "+pq+" has no rows") {
		t.Fatalf("0-row parquet: want bad input %q, got %v", "dataset "+pq+" has no rows", err)
	}
	for _, text := range []string{"", "\n  \n"} {
		root := t.TempDir()
		path := filepath.Join(root, "EleutherAI/lambada_openai/default/test.jsonl")
		writeFile(t, path, text)
		opts.DataDir = root
		_, err := buildLambada(t, opts)
		if !errs.IsBadInput(err) || !strings.Contains(err.Error(), "dataset "+path+" has no rows") {
			t.Fatalf("jsonl %q: want bad input naming %s, got %v", text, path, err)
		}
	}
}
