package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeval/goeval/hub/hubtest"
	"github.com/goeval/goeval/internal/testutil/fixturemodel"
	"github.com/goeval/goeval/synth"
)

// hubFixture serves a tiny model (org/tiny), a PEFT-free adapter-less
// setup and the arc_easy and gsm8k datasets from the Hub double.
func hubFixture(t *testing.T) (*hubtest.Server, string) {
	t.Helper()
	dir := t.TempDir()
	tok := filepath.Join(dir, "tok")
	if _, err := synth.Tokenizer(tok, 300); err != nil {
		t.Fatal(err)
	}
	o := synth.ModelOptions{Arch: "qwen2", Hidden: 16, Layers: 1, Heads: 2, KVHeads: 1, Intermediate: 32,
		Vocab: 300, RopeTheta: 10000, MaxPositions: 512, Seed: 1, DType: "f32", Shards: 2,
		TokenizerDir: tok, Out: filepath.Join(dir, "model")}
	if err := synth.Model(o); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	for _, task := range []string{"arc_easy", "gsm8k"} {
		if _, err := synth.Data(task, data, synth.DataOptions{N: 12}); err != nil {
			t.Fatal(err)
		}
	}
	s := hubtest.New()
	for kind, repos := range map[string]map[string]string{
		"models":   {"org/tiny": filepath.Join(dir, "model")},
		"datasets": {"allenai/ai2_arc": filepath.Join(data, "allenai", "ai2_arc"), "openai/gsm8k": filepath.Join(data, "openai", "gsm8k")},
	} {
		for id, d := range repos {
			if _, err := s.AddDir(kind, id, d); err != nil {
				t.Fatal(err)
			}
		}
	}
	return s, filepath.Join(dir, "hf")
}

func readJSON(t *testing.T, pattern string) map[string]any {
	t.Helper()
	files, _ := filepath.Glob(pattern)
	if len(files) != 1 {
		t.Fatalf("%s: %v", pattern, files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRunFromHub runs --model ORG/NAME from an empty cache (model and
// datasets fetched from the double), then again offline with the server
// gone: the same results, and the commits recorded.
func TestRunFromHub(t *testing.T) {
	s, home := hubFixture(t)
	t.Setenv("HF_HOME", home)
	t.Setenv("HF_HUB_CACHE", "")
	t.Setenv("HF_TOKEN", "")
	t.Setenv("HF_ENDPOINT", s.URL)
	t.Setenv("HF_HUB_OFFLINE", "0")
	out1, out2 := t.TempDir(), t.TempDir()
	args := []string{"run", "--model", "org/tiny", "--tasks", "arc_easy,gsm8k", "--limit", "3", "--bootstrap-iters", "0"}
	if code := runMain(append(args, "--output-path", out1)); code != 0 {
		t.Fatalf("online run: exit %d", code)
	}
	s.Close()
	t.Setenv("HF_HUB_OFFLINE", "1")
	if code := runMain(append(args, "--output-path", out2)); code != 0 {
		t.Fatalf("offline run: exit %d", code)
	}
	r1 := readJSON(t, filepath.Join(out1, "org__tiny", "results_*.json"))
	r2 := readJSON(t, filepath.Join(out2, "org__tiny", "results_*.json"))
	j1, _ := json.Marshal(r1["results"])
	j2, _ := json.Marshal(r2["results"])
	if string(j1) != string(j2) || !strings.Contains(string(j1), "arc_easy") {
		t.Errorf("online and offline results differ:\n%s\n%s", j1, j2)
	}
	cfg := r1["config"].(map[string]any)
	sha, _ := cfg["model_sha"].(string)
	if cfg["model_revision"] != "main" || len(sha) != 40 || r1["model_name"] != "org/tiny" {
		t.Errorf("model_revision %v model_sha %v model_name %v", cfg["model_revision"], cfg["model_sha"], r1["model_name"])
	}
	ds, _ := r2["dataset_sha"].(map[string]any)
	if len(ds) != 2 || ds["allenai/ai2_arc"] == nil || ds["openai/gsm8k"] == nil {
		t.Errorf("dataset_sha = %v", r2["dataset_sha"])
	}
}

// TestRunFromHubXDGCache: with neither HF_HOME nor HF_HUB_CACHE set, the
// Hub client fills $XDG_CACHE_HOME/huggingface/hub, and the tasks find the
// datasets there (tasks.Options.HubCache) although their own fallback
// would be ~/.cache/huggingface/hub; the process environment is untouched.
func TestRunFromHubXDGCache(t *testing.T) {
	s, _ := hubFixture(t)
	defer s.Close()
	xdg := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", xdg)
	t.Setenv("HOME", t.TempDir()) // the tasks' own fallback: empty
	for _, k := range []string{"HF_HOME", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_TOKEN", "HF_TOKEN_PATH"} {
		t.Setenv(k, "")
	}
	t.Setenv("HF_ENDPOINT", s.URL)
	t.Setenv("HF_HUB_OFFLINE", "0")
	args := []string{"run", "--model", "org/tiny", "--tasks", "arc_easy", "--limit", "2", "--bootstrap-iters", "0",
		"--output-path", t.TempDir()}
	if code := runMain(args); code != 0 {
		t.Fatalf("run with the hub cache under XDG_CACHE_HOME: exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(xdg, "huggingface", "hub", "datasets--allenai--ai2_arc")); err != nil {
		t.Errorf("the dataset was not fetched under XDG_CACHE_HOME: %v", err)
	}
	if v := os.Getenv("HF_HUB_CACHE"); v != "" {
		t.Errorf("goeval run set HF_HUB_CACHE=%s in its own environment", v)
	}
}

// TestDownloadThenOffline pre-fetches with goeval download, then runs
// offline; a model not downloaded is one bad-input line.
func TestDownloadThenOffline(t *testing.T) {
	s, home := hubFixture(t)
	t.Setenv("HF_HOME", home)
	t.Setenv("HF_HUB_CACHE", "")
	t.Setenv("HF_ENDPOINT", s.URL)
	t.Setenv("HF_HUB_OFFLINE", "0")
	if code := runMain([]string{"download", "--tasks", "arc_easy", "org/tiny"}); code != 0 {
		t.Fatalf("download: exit %d", code)
	}
	s.Close()
	t.Setenv("HF_HUB_OFFLINE", "1")
	if code := runMain([]string{"run", "--model", "org/tiny", "--tasks", "arc_easy", "--limit", "2", "--bootstrap-iters", "0"}); code != 0 {
		t.Fatalf("offline run after download: exit %d", code)
	}
	if code := runMain([]string{"run", "--model", "org/other", "--tasks", "arc_easy", "--limit", "2"}); code != 2 {
		t.Errorf("offline run of an uncached model: exit %d, want 2", code)
	}
}

// TestRunAdapterFromHub: --adapter ORG/NAME without --model takes the
// base from the adapter's base_model_name_or_path (itself a Hub id); the
// adapter's results equal a run of the same adapter from local folders.
func TestRunAdapterFromHub(t *testing.T) {
	base, lora := fixturemodel.Model(t, fixturemodel.Base), fixturemodel.AdapterDir(t)
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	if _, err := synth.Data("arc_easy", data, synth.DataOptions{N: 6}); err != nil {
		t.Fatal(err)
	}
	s := hubtest.New()
	defer s.Close()
	if _, err := s.AddDir("models", "org/base", base); err != nil {
		t.Fatal(err)
	}
	ad, err := s.AddDir("models", "org/lora", lora)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(ad.Files["adapter_config.json"], &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["base_model_name_or_path"] = "org/base"
	ad.Files["adapter_config.json"], _ = json.Marshal(cfg)
	t.Setenv("HF_HOME", filepath.Join(tmp, "hf"))
	t.Setenv("HF_HUB_CACHE", "")
	t.Setenv("HF_ENDPOINT", s.URL)
	t.Setenv("HF_HUB_OFFLINE", "0")
	hubOut, localOut := filepath.Join(tmp, "hub"), filepath.Join(tmp, "local")
	common := []string{"run", "--tasks", "arc_easy", "--data-dir", data, "--limit", "4", "--bootstrap-iters", "0",
		"--skip-base", "--adapter-mode", "merged"}
	if code := runMain(append(common, "--adapter", "org/lora", "--output-path", hubOut)); code != 0 {
		t.Fatalf("hub adapter run: exit %d", code)
	}
	if code := runMain(append(common, "--model", base, "--adapter", lora, "--output-path", localOut)); code != 0 {
		t.Fatalf("local adapter run: exit %d", code)
	}
	h := readJSON(t, filepath.Join(hubOut, "org__lora", "results_*.json"))
	l := readJSON(t, filepath.Join(localOut, "*", "results_*.json"))
	jh, _ := json.Marshal(h["results"])
	jl, _ := json.Marshal(l["results"])
	if string(jh) != string(jl) {
		t.Errorf("hub and local adapter results differ:\n%s\n%s", jh, jl)
	}
	c := h["config"].(map[string]any)
	args := c["model_args"].(map[string]any)
	if args["pretrained"] != "org/base" || args["peft"] != "org/lora" || len(c["peft_sha"].(string)) != 40 {
		t.Errorf("config %v", c)
	}
}
