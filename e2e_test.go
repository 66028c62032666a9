package goeval_test

import (
	stdcmp "cmp"
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
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/report"
	"github.com/goeval/goeval/synth"
	"github.com/goeval/goeval/tasks"
)

const e2eDir = "parity/e2e/testdata"

// e2eRuns is parity/e2e/testdata/runs.json: the synthesized models'
// hashes and the runs the goldens hold.
type e2eRuns struct {
	Synth      map[string]string `json:"synth"`       // model M
	SynthNoBOS map[string]string `json:"synth_nobos"` // model C
	Runs       []e2eRun          `json:"runs"`
}

// e2eRun is one lm_eval invocation of parity/e2e/e2e.py.
type e2eRun struct {
	Name               string           `json:"name"`
	Model              string           `json:"model"` // "M" (default) or "C"
	Limit              float64          `json:"limit"`
	Tasks              []string         `json:"tasks"`
	GenKwargs          string           `json:"gen_kwargs"`
	NumFewshot         *int             `json:"num_fewshot"`
	ApplyChatTemplate  bool             `json:"apply_chat_template"`
	FewshotAsMultiturn *bool            `json:"fewshot_as_multiturn"`
	SystemInstruction  string           `json:"system_instruction"`
	Samples            map[string][]int `json:"samples"`
	Metadata           json.RawMessage  `json:"metadata"`
	// IncludePath, a folder of lm-eval task YAML files indexed before the
	// tasks are resolved (--include-path), and DataDir, the folder their
	// documents are read from instead of the synthetic data (--data-dir),
	// both relative to the repository root.
	IncludePath string `json:"include_path"`
	DataDir     string `json:"data_dir"`
	// DataFilesDir is where lm-eval read a json task's relative
	// dataset_kwargs.data_files (lmeval_synth.py's --data-files-dir, as
	// datasets would from that working directory); goeval needs no flag:
	// it finds them next to the task's YAML file (examples/tasks/capitals).
	DataFilesDir string `json:"data_files_dir"`
	// BootstrapIters is --bootstrap-iters (0: lm-eval's default 100000).
	BootstrapIters int `json:"bootstrap_iters"`
	// ConfirmRunUnsafeCode runs code tasks (parity/reason's code runs).
	ConfirmRunUnsafeCode bool `json:"confirm_run_unsafe_code"`
	// ThinkEndToken cuts the answers' reasoning (Options.Thinking;
	// parity/reason's think run).
	ThinkEndToken string `json:"think_end_token"`
	// Python runs the task files' Python functions in a worker of
	// pythonPath (parity/leaderboard's "leaderboard" run); without it
	// goeval runs none (--python none).
	Python     bool `json:"python"`
	pythonPath string
	// goldens is the folder of the run's golden folder ("": e2eDir), and
	// model, when set, answers the requests instead of the engine (whose
	// description still goes into the results).
	goldens string
	model   lm.LM
}

// e2eModels are parity/e2e/e2e.py's MODELS: M, a Qwen base-style
// tokenizer (eos = pad = <|endoftext|> = config bos_token_id); C, a Qwen
// chat-style one (no BOS, eos <|im_end|>, pad and config bos_token_id
// <|endoftext|>) with 128 positions (two rolling windows per wikitext page,
// left-truncated chat prompts); L, parity/leaderboard's, C with 4096
// positions.
var e2eModels = map[string]struct {
	eos          string
	maxPositions int
}{"M": {"<|endoftext|>", 2048}, "C": {"<|im_end|>", 128}, "L": {"<|im_end|>", 4096}}

// TestEndToEndLMEval re-synthesizes the tiny models and the data exactly as
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
	dataDir := filepath.Join(dir, "D")
	if _, err := synth.Data("all", dataDir, synth.DataOptions{N: 30}); err != nil {
		t.Fatal(err)
	}
	engines := map[string]*engine.Engine{}
	defer func() {
		for _, m := range engines {
			m.Close()
		}
	}()
	hashes := map[string]map[string]string{"M": cfg.Synth, "C": cfg.SynthNoBOS}
	for _, run := range cfg.Runs {
		name := stdcmp.Or(run.Model, "M")
		if engines[name] == nil {
			engines[name] = openE2EModel(t, filepath.Join(dir, name), name, e2eDir, hashes[name])
		}
		t.Run(run.Name, func(t *testing.T) {
			runE2E(t, engines[name], filepath.Join(dir, name), dataDir, filepath.Join(dir, "out_"+run.Name), run)
		})
	}
}

// runE2E evaluates run with m (synthesized in modelDir) as `goeval run`
// does, writes the files to out and compares them with the run's goldens.
func runE2E(t *testing.T, m *engine.Engine, modelDir, dataDir, out string, run e2eRun) {
	ix := tasks.NewIndex()
	if run.Python {
		ix.SetPython(run.pythonPath, 0)
		defer ix.Close()
	}
	if run.IncludePath != "" {
		if _, _, err := ix.IncludePath(run.IncludePath); err != nil {
			t.Fatal(err)
		}
	}
	dataDir = stdcmp.Or(run.DataDir, dataDir)
	gk := parseKV(t, run.GenKwargs)
	iters := stdcmp.Or(run.BootstrapIters, 100000)
	opts := goeval.Options{Tasks: run.Tasks, Index: ix, Task: tasks.DefaultOptions(), LogSamples: true, BootstrapIters: iters}
	opts.Task.DataDir, opts.Task.Limit, opts.Task.GenKwargs, opts.Task.Samples = dataDir, run.Limit, gk, run.Samples
	if run.NumFewshot != nil {
		opts.Task.NumFewshot = *run.NumFewshot
	}
	prompt := report.PromptSettings{SystemInstruction: run.SystemInstruction, ApplyChatTemplate: run.ApplyChatTemplate}
	opts.Task.SystemInstruction, opts.Task.ApplyChatTemplate = run.SystemInstruction, run.ApplyChatTemplate
	if run.ApplyChatTemplate {
		multi := run.FewshotAsMultiturn == nil || *run.FewshotAsMultiturn // lm-eval >= 0.4.10's default
		opts.Task.FewshotAsMultiturn = multi
		prompt.FewshotAsMultiturn, prompt.ChatTemplate = &multi, m.ChatTemplate()
	}
	opts.Task.ConfirmRunUnsafeCode = run.ConfirmRunUnsafeCode
	opts.Thinking = lm.Thinking{EndToken: run.ThinkEndToken}
	var answers lm.LM = m
	if run.model != nil {
		answers = run.model
	}
	res, err := goeval.Evaluate(context.Background(), answers, opts)
	if err != nil {
		t.Fatal(err)
	}
	model := m.Info()
	seed, fewshot := int64(0), int64(1234)
	info := report.RunInfo{ModelName: modelDir, Prompt: prompt, Model: &model, Metadata: e2eMetadata(t, run.Metadata),
		Settings: report.RunSettings{Model: modelDir, DType: "float32", BatchSize: "4", Device: "cpu", Limit: run.Limit,
			Checkpoint: true, NumParameters: int64(m.NumParameters()), BootstrapIters: iters, GenKwargs: gk,
			Seeds: report.Seeds{Random: &seed, NumPy: &fewshot, Torch: &fewshot, Fewshot: &fewshot}}}
	rep, samples, err := report.FromResults(res, info)
	if err != nil {
		t.Fatal(err)
	}
	path, err := report.WriteRun(out, rep, samples, res.Start)
	if err != nil {
		t.Fatal(err)
	}
	compareE2E(t, filepath.Join(stdcmp.Or(run.goldens, e2eDir), run.Name), path, map[string]string{
		modelDir: "MODEL", report.SanitizeModelName(modelDir): "MODEL"})
}

// e2eMetadata is a run's --metadata, keys in order (nil without one).
func e2eMetadata(t *testing.T, raw json.RawMessage) *py.Map[any] {
	if len(raw) == 0 {
		return nil
	}
	v, err := py.ParseJSON(raw)
	m, ok := v.(*py.Map[any])
	if err != nil || !ok {
		t.Fatalf("runs.json metadata %s: %v", raw, err)
	}
	return m
}

// openE2EModel synthesizes model name (e2eModels) into modelDir, checks
// its hashes against the goldens' (a changed synthesizer needs new
// goldens) and opens it.
func openE2EModel(t *testing.T, modelDir, name, goldens string, want map[string]string) *engine.Engine {
	spec := e2eModels[name]
	if _, err := synth.TokenizerEOS(modelDir, 512, spec.eos); err != nil {
		t.Fatal(err)
	}
	// goeval synth model --arch qwen2 --hidden 64 --layers 2 --heads 4
	// --kv-heads 2 --intermediate 128 --seed 1 [--max-positions 128].
	o := synth.ModelOptions{Arch: "qwen2", Hidden: 64, Layers: 2, Heads: 4, KVHeads: 2, Intermediate: 128,
		Vocab: 512, RopeTheta: 10000, MaxPositions: spec.maxPositions, BOS: 1, EOS: 2, Seed: 1, DType: "f32",
		Shards: 1, TokenizerDir: modelDir, Out: modelDir}
	if err := synth.Model(o); err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 {
		t.Fatalf("runs.json has no hashes for model %s: regenerate the goldens with .venv/bin/python %s", name, regenScript(goldens))
	}
	for k, v := range want {
		if got := fileHash(t, filepath.Join(modelDir, k)); got != v {
			t.Fatalf("synthesized %s %s differs from the one the lm-eval goldens were made with (sha256 %s, want %s): "+
				"regenerate them with .venv/bin/python %s", name, k, got, v, regenScript(goldens))
		}
	}
	m, err := engine.Open(modelDir, engine.Options{Device: "cpu", DType: "float32", BatchSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	return m
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

// regenScript is the script that makes the goldens under dir:
// parity/reason/reason.py for reasonDir's, else parity/e2e/e2e.py.
func regenScript(dir string) string {
	if rel, err := filepath.Rel(leaderboardDir, dir); err == nil && !strings.HasPrefix(rel, "..") {
		return "parity/leaderboard/leaderboard.py"
	}
	if rel, err := filepath.Rel(reasonDir, dir); err == nil && !strings.HasPrefix(rel, "..") {
		return "parity/reason/reason.py"
	}
	return "parity/e2e/e2e.py"
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
			".venv/bin/python " + regenScript(golden))
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
