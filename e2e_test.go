package goeval_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/goeval/goeval"
	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/report"
	"github.com/goeval/goeval/synth"
	"github.com/goeval/goeval/tasks"
)

const e2eDir = "parity/e2e/testdata"

// e2eRuns is parity/e2e/testdata/runs.json: the synthesized inputs' hashes
// and the runs the goldens hold.
type e2eRuns struct {
	Synth map[string]string `json:"synth"`
	Runs  []struct {
		Name      string   `json:"name"`
		Limit     float64  `json:"limit"`
		Tasks     []string `json:"tasks"`
		GenKwargs string   `json:"gen_kwargs"`
	} `json:"runs"`
}

// TestEndToEndLMEval re-synthesizes the tiny model and the data exactly as
// parity/e2e/e2e.py does, evaluates them in-process and compares the results
// and samples files with lm-eval's (`lm_eval --model hf`, committed as
// goldens) metric by metric, keys and structure included.
func TestEndToEndLMEval(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(e2eDir, "runs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg e2eRuns
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	modelDir, dataDir := synthE2E(t, dir, cfg.Synth)
	m, err := engine.Open(modelDir, engine.Options{Device: "cpu", DType: "float32", BatchSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, run := range cfg.Runs {
		t.Run(run.Name, func(t *testing.T) {
			out := filepath.Join(dir, "out_"+run.Name)
			gk := parseKV(t, run.GenKwargs)
			opts := goeval.Options{Tasks: run.Tasks, Task: tasks.DefaultOptions(), LogSamples: true}
			opts.Task.DataDir, opts.Task.Limit, opts.Task.GenKwargs = dataDir, run.Limit, gk
			res, err := goeval.Evaluate(context.Background(), m, opts)
			if err != nil {
				t.Fatal(err)
			}
			info := report.RunInfo{ModelName: modelDir, Extra: report.ModelKeys(m.Info()), Config: report.RunConfig(report.RunSettings{
				Model: modelDir, DType: "float32", BatchSize: 4, Device: "cpu", Limit: run.Limit,
				BootstrapIters: 100000, GenKwargs: gk, Seeds: [4]any{int64(0), int64(1234), int64(1234), int64(1234)}})}
			rep, samples, err := report.FromResults(res, info)
			if err != nil {
				t.Fatal(err)
			}
			path, err := report.WriteRun(out, rep, samples, res.Start)
			if err != nil {
				t.Fatal(err)
			}
			compareE2E(t, filepath.Join(e2eDir, run.Name), path, map[string]string{
				modelDir: "MODEL", report.SanitizeModelName(modelDir): "MODEL"})
		})
	}
}

// synthE2E writes the tokenizer, model and data and checks the model's
// hashes against the goldens' (a changed synthesizer needs new goldens).
func synthE2E(t *testing.T, dir string, want map[string]string) (string, string) {
	modelDir, dataDir := filepath.Join(dir, "M"), filepath.Join(dir, "D")
	if _, err := synth.Tokenizer(modelDir, 512); err != nil {
		t.Fatal(err)
	}
	// goeval synth model --arch qwen2 --hidden 64 --layers 2 --heads 4
	// --kv-heads 2 --intermediate 128 --seed 1 (the tiny preset otherwise).
	o := synth.ModelOptions{Arch: "qwen2", Hidden: 64, Layers: 2, Heads: 4, KVHeads: 2, Intermediate: 128,
		Vocab: 512, RopeTheta: 10000, MaxPositions: 2048, BOS: 1, EOS: 2, Seed: 1, DType: "f32", Shards: 1,
		TokenizerDir: modelDir, Out: modelDir}
	if err := synth.Model(o); err != nil {
		t.Fatal(err)
	}
	if _, err := synth.Data("all", dataDir, synth.DataOptions{N: 30}); err != nil {
		t.Fatal(err)
	}
	for k, v := range want {
		if got := fileHash(t, filepath.Join(modelDir, k)); got != v {
			t.Fatalf("synthesized %s differs from the one the lm-eval goldens were made with (sha256 %s, want %s): "+
				"regenerate them with .venv/bin/python parity/e2e/e2e.py", k, got, v)
		}
	}
	return modelDir, dataDir
}

func fileHash(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// parseKV reads "k=v,k2=v2" with integer values (the goldens' --gen-kwargs).
func parseKV(t *testing.T, s string) map[string]any {
	if s == "" {
		return nil
	}
	out := map[string]any{}
	for _, kv := range strings.Split(s, ",") {
		k, v, _ := strings.Cut(kv, "=")
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("gen_kwargs %q: only integer values are supported here", s)
		}
		out[k] = n
	}
	return out
}

// compareE2E compares goeval's results file (and its samples files) with
// the golden folder's results.json and samples_<task>.jsonl.
func compareE2E(t *testing.T, golden, resultsPath string, paths map[string]string) {
	want := readJSON(t, filepath.Join(golden, "results.json"))
	got := normalise(readJSON(t, resultsPath), paths)
	wantSamples, gotSamples := map[string][]any{}, map[string][]any{}
	gm, _ := filepath.Glob(filepath.Join(golden, "samples_*.jsonl"))
	for _, p := range gm {
		wantSamples[strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "samples_"), ".jsonl")] = readJSONL(t, p)
	}
	date := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(resultsPath), "results_"), ".json")
	gm, _ = filepath.Glob(filepath.Join(filepath.Dir(resultsPath), "samples_*_"+date+".jsonl"))
	for _, p := range gm {
		task := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "samples_"), "_"+date+".jsonl")
		gotSamples[task] = normaliseList(readJSONL(t, p), paths)
	}
	c := &cmp{}
	if len(wantSamples) != len(gotSamples) {
		c.fail("samples files: lm-eval %d tasks, goeval %d", len(wantSamples), len(gotSamples))
	}
	exact := map[string]bool{}
	for task, rows := range wantSamples {
		g, ok := gotSamples[task]
		if !ok {
			c.fail("samples %s: goeval wrote none", task)
			continue
		}
		exact[task] = c.samples(task, rows, g)
	}
	c.results(want.(*py.Map[any]), got.(*py.Map[any]), exact)
	for _, n := range c.notes {
		t.Log("note:", n)
	}
	for _, p := range c.problems {
		t.Error(p)
	}
	if len(c.problems) > 0 {
		t.Log("if the data synthesizer (synth/data*.go) changed on purpose, regenerate the goldens: " +
			".venv/bin/python parity/e2e/e2e.py")
	}
}

func readJSON(t *testing.T, path string) any {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := py.ParseJSON(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

func readJSONL(t *testing.T, path string) []any {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		v, err := py.ParseJSON([]byte(line))
		if err != nil {
			t.Fatalf("%s line %d: %v", path, i+1, err)
		}
		out = append(out, v)
	}
	return out
}

// normalise replaces local paths with the goldens' placeholders.
func normalise(v any, paths map[string]string) any {
	switch x := v.(type) {
	case *py.Map[any]:
		out := py.NewMap[any]()
		for _, k := range x.Keys() {
			e, _ := x.Get(k)
			out.Set(k, normalise(e, paths))
		}
		return out
	case []any:
		return normaliseList(x, paths)
	case string:
		keys := make([]string, 0, len(paths))
		for p := range paths {
			keys = append(keys, p)
		}
		sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
		for _, p := range keys {
			x = strings.ReplaceAll(x, p, paths[p])
		}
		return x
	}
	return v
}

func normaliseList(l []any, paths map[string]string) []any {
	out := make([]any, len(l))
	for i, e := range l {
		out[i] = normalise(e, paths)
	}
	return out
}
