package tasks_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeval/goeval/tasks"
)

// The goldens under testdata/lmeval_yaml/golden are lm-eval 0.4.13's own task
// objects, built from its task YAML files (copied unchanged into
// testdata/lmeval_yaml/tasks) over synthetic documents in each dataset's
// schema (testdata/lmeval_yaml/data), written by
// parity/lmeval/dump_yaml_tasks.py. goeval loads the same files through
// --include-path and must give byte-identical documents, targets, request
// arguments (prompts, choices as continuations, generation kwargs) and
// --limit 0.2 documents, and the same output type, metrics and filters.

const yamlTestdata = "testdata/lmeval_yaml"

// yamlRefused are golden tasks goeval refuses at load time, with the key the
// error must name.
var yamlRefused = map[string]string{
	"gsm8k_platinum_cot_self_consistency": "repeats",     // 64 samples per question, majority vote
	"wmt16-en-de":                         "metric_list", // bleu, ter, chrf (sacrebleu)
}

func TestLMEvalYAMLParity(t *testing.T) {
	if _, _, err := tasks.IncludePath(filepath.Join(yamlTestdata, "tasks")); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(yamlTestdata, "golden", "*.jsonl"))
	variants, _ := filepath.Glob(filepath.Join(yamlTestdata, "golden", "variants", "*.jsonl"))
	if len(files) < 30 {
		t.Fatalf("%d golden tasks, want at least 30", len(files))
	}
	ran := 0
	for _, f := range append(files, variants...) {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			head, want := readGolden(t, f)
			task, k, _ := strings.Cut(name, "@")
			tk, err := tasks.Get(task)
			if key, refused := yamlRefused[task]; refused {
				if err == nil || !strings.Contains(err.Error(), key) {
					t.Fatalf("want a load error naming %s, got %v", key, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkYAMLHead(t, tk, head)
			opts := tasks.DefaultOptions()
			opts.DataDir = filepath.Join(yamlTestdata, "data")
			if k != "" {
				opts.NumFewshot = int(head["num_fewshot"].(float64))
			}
			if got := tk.NumFewshot(opts); float64(got) != head["num_fewshot"].(float64) {
				t.Errorf("num_fewshot %d, lm-eval %v", got, head["num_fewshot"])
			}
			insts, err := tk.Build(opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(insts) != len(want) {
				t.Fatalf("%d instances, lm-eval %d", len(insts), len(want))
			}
			for i, inst := range insts {
				if got := renderInstance(t, inst); got != want[i] {
					t.Fatalf("doc %d differs:\n got %s\nwant %s", i, got, want[i])
				}
			}
			opts.Limit = 0.2
			lim, err := tk.Build(opts)
			if err != nil {
				t.Fatal(err)
			}
			if ids := head["limit_0.2_doc_ids"].([]any); len(lim) != len(ids) {
				t.Fatalf("--limit 0.2: %d docs, lm-eval %d", len(lim), len(ids))
			}
			ran++
		})
	}
	t.Logf("%d YAML tasks and variants identical to lm-eval", ran)
}

// checkYAMLHead compares the task's output type, metric names and filter
// names with lm-eval's.
func checkYAMLHead(t *testing.T, tk tasks.Task, head map[string]any) {
	t.Helper()
	if got := tk.OutputType().String(); got != head["output_type"] {
		t.Errorf("output_type %s, lm-eval %v", got, head["output_type"])
	}
	var ms []string
	for _, m := range tk.Metrics() {
		ms = append(ms, m.Name)
	}
	if got, want := strings.Join(ms, ","), joinAny(head["metrics"]); got != want {
		t.Errorf("metrics %s, lm-eval %s", got, want)
	}
	if got, want := strings.Join(tk.Filters(), ","), joinAny(head["filters"]); got != want {
		t.Errorf("filters %s, lm-eval %s", got, want)
	}
}

func joinAny(v any) string {
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(string))
	}
	return strings.Join(out, ",")
}
