package tasks_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
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
// error must name (none since repeats are supported).
var yamlRefused = map[string]string{}

func TestLMEvalYAMLParity(t *testing.T) {
	ix := tasks.NewIndex()
	if _, _, err := ix.IncludePath(filepath.Join(yamlTestdata, "tasks")); err != nil {
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
			tk, err := ix.Get(task)
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
			insts := buildMatches(t, tk, opts, want)
			checkRepeats(t, insts, head)
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

// checkRepeats compares every request's repeats with lm-eval's.
func checkRepeats(t *testing.T, insts []tasks.Instance, head map[string]any) {
	t.Helper()
	want, ok := head["repeats"].(float64)
	if !ok {
		t.Fatalf("the golden head has no repeats: %v", head["repeats"])
	}
	for _, inst := range insts {
		for _, q := range inst.Requests {
			if q.Times() != int(want) {
				t.Fatalf("doc %d: a request answered %d times, lm-eval's repeats %v", inst.DocID, q.Times(), want)
			}
		}
	}
}

func joinAny(v any) string {
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(string))
	}
	return strings.Join(out, ",")
}

// TestLMEvalYAMLGroups compares the groups and tags the custom files define
// (golden/groups, from lm-eval's TaskManager) with goeval's expansion:
// members in order, group alias, version and aggregation, and each member
// task's alias, few-shot count and metrics.
func TestLMEvalYAMLGroups(t *testing.T) {
	ix := tasks.NewIndex()
	if _, _, err := ix.IncludePath(filepath.Join(yamlTestdata, "tasks")); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(yamlTestdata, "golden", "groups", "*.json"))
	if len(files) == 0 {
		t.Fatal("no group goldens")
	}
	for _, f := range files {
		var g struct {
			Name, Kind string
			GroupAlias string `json:"group_alias"`
			Version    string
			Aggregate  []struct {
				Metric       string
				WeightBySize bool `json:"weight_by_size"`
			} `json:"aggregate_metric_list"`
			Members []string
			Tasks   []struct {
				Task       string
				TaskAlias  *string `json:"task_alias"`
				NumFewshot int     `json:"num_fewshot"`
				Metrics    []string
			}
		}
		testutil.ReadJSON(t, f, &g)
		t.Run(g.Name, func(t *testing.T) {
			ts, gs, err := ix.Expand([]string{g.Name})
			if err != nil {
				t.Fatal(err)
			}
			if g.Kind == "tag" && len(gs) != 0 {
				t.Errorf("a tag expanded into groups %v", gs)
			}
			if g.Kind == "group" {
				if len(gs) != 1 {
					t.Fatalf("groups %v", gs)
				}
				gr := gs[0]
				if strings.Join(gr.Subtasks, ",") != strings.Join(g.Members, ",") || gr.Alias != g.GroupAlias || gr.Version != g.Version {
					t.Errorf("group %+v, lm-eval members %v alias %q version %q", gr, g.Members, g.GroupAlias, g.Version)
				}
				var ms []string
				for _, a := range g.Aggregate {
					ms = append(ms, a.Metric)
					if a.WeightBySize != gr.WeightBySize {
						t.Errorf("weight_by_size %v, lm-eval %v", gr.WeightBySize, a.WeightBySize)
					}
				}
				if !gr.Aggregate || strings.Join(gr.Metrics, ",") != strings.Join(ms, ",") {
					t.Errorf("aggregate %v %v, lm-eval %v", gr.Aggregate, gr.Metrics, ms)
				}
			}
			if len(ts) != len(g.Tasks) {
				t.Fatalf("%d tasks, lm-eval %d", len(ts), len(g.Tasks))
			}
			for i, want := range g.Tasks {
				tk := ts[i]
				alias := want.Task
				if want.TaskAlias != nil {
					alias = *want.TaskAlias
				}
				var ms []string
				for _, m := range tk.Metrics() {
					ms = append(ms, m.Name)
				}
				if tk.Name() != want.Task || tk.Alias() != alias || tk.NumFewshot(tasks.DefaultOptions()) != want.NumFewshot ||
					strings.Join(ms, ",") != strings.Join(want.Metrics, ",") {
					t.Errorf("task %d: %s alias %q %d-shot %v; lm-eval %s %q %d-shot %v", i, tk.Name(), tk.Alias(),
						tk.NumFewshot(tasks.DefaultOptions()), ms, want.Task, alias, want.NumFewshot, want.Metrics)
				}
			}
		})
	}
}

// TestLMEvalYAMLScoring feeds canned responses to a multiple-target
// generation task with five filters and compares every filtered response
// and exact_match score with lm-eval's (golden/scoring).
func TestLMEvalYAMLScoring(t *testing.T) {
	ix := tasks.NewIndex()
	if _, _, err := ix.IncludePath(filepath.Join(yamlTestdata, "tasks")); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(yamlTestdata, "golden", "scoring", "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no scoring goldens")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		tk, err := ix.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		opts := tasks.DefaultOptions()
		opts.DataDir = filepath.Join(yamlTestdata, "data")
		insts, err := tk.Build(opts)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range readLines(t, f) {
			var g struct {
				DocID    int `json:"doc_id"`
				Response string
				Filtered map[string]string
				Scores   map[string]map[string]float64
			}
			if err := json.Unmarshal([]byte(line), &g); err != nil {
				t.Fatal(err)
			}
			inst := insts[g.DocID]
			got, err := tk.Process(&inst, []tasks.Response{{Text: g.Response}})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(g.Filtered) {
				t.Errorf("%s doc %d: filters %v, lm-eval %v", name, i, got, g.Filtered)
			}
			for filter, want := range g.Filtered {
				r := got[filter]
				if r.FilteredResps != want {
					t.Errorf("%s doc %d filter %s: %q, lm-eval %q", name, i, filter, r.FilteredResps, want)
				}
				for m, w := range g.Scores[filter] {
					if v, _ := r.Metrics[m].Float(); v != w {
						t.Errorf("%s doc %d filter %s %s: %v, lm-eval %v", name, i, filter, m, v, w)
					}
				}
			}
		}
	}
}

// TestLMEvalYAMLExample checks the README's example task
// (examples/tasks/capitals) against lm-eval's rendering of it.
func TestLMEvalYAMLExample(t *testing.T) {
	f := filepath.Join(yamlTestdata, "golden_examples", "capitals.jsonl")
	head, want := readGolden(t, f)
	ix := tasks.NewIndex()
	name, err := ix.LoadTaskFile(filepath.Join(yamlTestdata, "golden_examples", head["yaml"].(string)))
	if err != nil {
		t.Fatal(err)
	}
	tk, err := ix.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	checkYAMLHead(t, tk, head)
	buildMatches(t, tk, tasks.DefaultOptions(), want)
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// TestYAMLHubDataFiles: a task YAML whose data_files are on the Hub names
// them for the download step; one with local files names none.
func TestYAMLHubDataFiles(t *testing.T) {
	ix := tasks.NewIndex()
	if _, _, err := ix.IncludePath(filepath.Join(yamlTestdata, "tasks")); err != nil {
		t.Fatal(err)
	}
	path, pats, err := ix.DataFiles("prost")
	if err != nil || path != "corypaik/prost" || strings.Join(pats, ",") != "data/default.jsonl" {
		t.Errorf("prost: %q %v %v", path, pats, err)
	}
	if _, _, err := ix.DataFiles("goeval_custom_local_jsonl"); err == nil {
		t.Error("local data files: want an error (nothing to fetch)")
	}
	path, _, err = ix.DataFiles("sciq")
	if err != nil || path != "allenai/sciq" {
		t.Errorf("sciq: %q %v", path, err)
	}
}
