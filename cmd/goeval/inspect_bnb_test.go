package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
)

// TestInspectBnb: inspect describes a bitsandbytes 4-bit checkpoint (its
// quantization, the weights by their dense shapes) and checks it as Load
// reads it; a quantization Load does not read is a check problem, exit 0.
func TestInspectBnb(t *testing.T) {
	dir := filepath.Join(testutil.Root(t), "models", "testdata", "bnb", "llama-nf4-dq")
	r := inspectJSON(t, dir)
	q := r.Quantization
	if q == nil || q.Tensors != 14 || q.Blocksizes[64] != 14 || q.Description != "bitsandbytes 4-bit nf4, double quant, compute float32" {
		t.Errorf("quantization %+v", q)
	}
	if !r.Check.OK || r.Tensors.ByDType["NF4"] != 14 || r.Tensors.Count != 21 {
		t.Errorf("check %+v, tensors %+v", r.Check, r.Tensors)
	}
	text, _, code := goeval(t, "inspect", "--model", dir)
	if code != 0 || !strings.Contains(text, "quantized:    bitsandbytes 4-bit nf4, double quant, compute float32; 14 weights (blocksize 64: 14)") {
		t.Errorf("inspect text (exit %d):\n%s", code, text)
	}

	// The same tensors under an 8-bit quantization_config.
	eight := t.TempDir()
	data, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["quantization_config"].(map[string]any)["load_in_8bit"] = true
	data, _ = json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(eight, "config.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "model.safetensors"), filepath.Join(eight, "model.safetensors")); err != nil {
		t.Fatal(err)
	}
	r = inspectJSON(t, eight)
	const both = "quantization_config has both load_in_4bit and load_in_8bit"
	if r.Check.OK || len(r.Check.Problems) == 0 || !strings.Contains(r.Check.Problems[0], both) {
		t.Errorf("8-bit: check %+v", r.Check)
	}
	_, stderr, code := goeval(t, "score", "--model", eight, "--device", "cpu")
	if code != 2 || !strings.Contains(stderr, both) {
		t.Errorf("score on an 8-bit checkpoint: exit %d, %s", code, stderr)
	}
}
