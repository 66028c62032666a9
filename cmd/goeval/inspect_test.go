package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/internal/testutil/fixturemodel"
	"github.com/goeval/goeval/models"
)

// goevalBin is the command the CLI tests run: the test binary itself,
// which TestMain (script_test.go) installs on $PATH as goeval.
const goevalBin = "goeval"

// goeval runs the binary and returns stdout, stderr and the exit status.
func goeval(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(goevalBin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

func inspectJSON(t *testing.T, dir string) models.Inspection {
	t.Helper()
	out, stderr, code := goeval(t, "inspect", "--model", dir, "--json")
	if code != 0 {
		t.Fatalf("inspect exit %d: %s", code, stderr)
	}
	var r models.Inspection
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("inspect --json output is not one JSON object: %v\n%s", err, out)
	}
	return r
}

func TestInspectFixture(t *testing.T) {
	r := inspectJSON(t, fixturemodel.Model(t, "tiny-qwen2"))
	// Qwen2 tied, hidden 32, 2 layers, 4 heads of 8 (2 KV), MLP 96, vocab 151669.
	const h, kv, ffn, vocab = 32, 16, 96, 151669
	perLayer := (h*h + h) + 2*(kv*h+kv) + h*h + 3*ffn*h + 2*h
	if want := int64(vocab*h + 2*perLayer + h); r.Parameters != want {
		t.Errorf("parameters %d, want %d", r.Parameters, want)
	}
	if r.Architecture != "Qwen2ForCausalLM" || !r.Check.OK || r.Tensors.Count != 26 || r.Tensors.ByDType["F32"] != 26 {
		t.Errorf("report %+v", r)
	}
	if len(r.Tensors.List) != 10 || r.Tensors.Omitted != 16 || r.Tensors.List[0].Name != "model.embed_tokens.weight" {
		t.Errorf("tensor list %+v (omitted %d)", r.Tensors.List, r.Tensors.Omitted)
	}
	if tk := r.Tokenizer; tk == nil || tk.VocabSize != vocab || tk.EOSID != 151645 || tk.ModelType != "BPE" {
		t.Errorf("tokenizer %+v", tk)
	}
	text, _, code := goeval(t, "inspect", "--model", fixturemodel.Model(t, "tiny-llama32"), "--tensors")
	for _, want := range []string{"LlamaForCausalLM", "llama3 factor 32 low 1 high 4 original 8192", "model.layers.1.mlp.up_proj.weight", "check:        ok"} {
		if code != 0 || !strings.Contains(text, want) {
			t.Errorf("inspect text (exit %d) lacks %q:\n%s", code, want, text)
		}
	}
}

func TestSynthThenInspect(t *testing.T) {
	out := filepath.Join(t.TempDir(), "m")
	if _, stderr, code := goeval(t, "synth", "model", "--preset", "tiny", "--arch", "qwen3", "--head-dim", "32", "--shards", "2", "--seed", "9", "--out", out); code != 0 {
		t.Fatalf("synth exit %d: %s", code, stderr)
	}
	r := inspectJSON(t, out)
	if r.Architecture != "Qwen3ForCausalLM" || r.Config["head_dim"] != float64(32) || len(r.Tensors.Files) != 2 || !r.Check.OK {
		t.Fatalf("report %+v", r)
	}
	// A config.json that no longer matches the tensors is reported, not fatal.
	cfgPath := filepath.Join(out, "config.json")
	cfg, _ := os.ReadFile(cfgPath)
	os.WriteFile(cfgPath, bytes.Replace(cfg, []byte(`"intermediate_size": 192`), []byte(`"intermediate_size": 96`), 1), 0o644)
	r = inspectJSON(t, out)
	if r.Check.OK || len(r.Check.Problems) != 6 || !strings.Contains(r.Check.Problems[0], "config.json implies") {
		t.Errorf("check %+v", r.Check)
	}
}

func TestBadInputExit2(t *testing.T) {
	tmp := t.TempDir()
	mk := func(name string, files map[string]string) string {
		d := filepath.Join(tmp, name)
		os.MkdirAll(d, 0o755)
		for f, s := range files {
			os.WriteFile(filepath.Join(d, f), []byte(s), 0o644)
		}
		return d
	}
	good, err := os.ReadFile(testutil.Fixture(t, "tiny-llama", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]string{
		"no model flag":   {"inspect"},
		"unknown flag":    {"inspect", "--modle", "x"},
		"missing dir":     {"inspect", "--model", filepath.Join(tmp, "nope")},
		"malformed":       {"inspect", "--model", mk("malformed", map[string]string{"config.json": `{"architectures": [`})},
		"unknown arch":    {"inspect", "--model", mk("arch", map[string]string{"config.json": strings.Replace(string(good), "LlamaForCausalLM", "FooForCausalLM", 1)})},
		"no weights":      {"inspect", "--model", mk("noweights", map[string]string{"config.json": string(good)})},
		"truncated":       {"inspect", "--model", mk("trunc", map[string]string{"config.json": string(good), "model.safetensors": "\x40\x00\x00\x00\x00\x00\x00\x00{}"})},
		"synth bad arch":  {"synth", "model", "--arch", "gpt2", "--out", filepath.Join(tmp, "s1")},
		"synth bad heads": {"synth", "model", "--heads", "3", "--out", filepath.Join(tmp, "s2")},
		"synth no out":    {"synth", "model"},
		"synth bad tok":   {"synth", "model", "--tokenizer", tmp, "--out", filepath.Join(tmp, "s3")},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			_, stderr, code := goeval(t, args...)
			lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
			if code != 2 || len(lines) != 1 || lines[0] == "" || strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine") {
				t.Errorf("exit %d, stderr %q: want exit 2 and one line", code, stderr)
			}
		})
	}
}
