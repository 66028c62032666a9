package models

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/models/safetensors"
)

// gemma3mmDir is the tiny Gemma3ForConditionalGeneration that
// parity/archs/arch_golden.py writes (the Hub's tensor layout).
var gemma3mmDir = filepath.Join(testdata, "archs", "gemma3mm")

// copyRenamed writes the checkpoint in src to a new folder with config
// (src's when nil) and each tensor renamed by the first of prefixes it
// starts with ([2]string{from, to}); tensors under a drop prefix are left
// out.
func copyRenamed(t *testing.T, src string, config []byte, prefixes [][2]string, drop ...string) string {
	t.Helper()
	set, err := safetensors.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	ts := renamedTensors(t, set, prefixes, drop...)
	dir := t.TempDir()
	if config == nil {
		if config, err = os.ReadFile(filepath.Join(src, ConfigFile)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), config, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := safetensors.Write(filepath.Join(dir, "model.safetensors"), ts, nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

// renamedTensors is every tensor of set, renamed and dropped as
// copyRenamed says.
func renamedTensors(t *testing.T, set *safetensors.Set, prefixes [][2]string, drop ...string) []safetensors.Tensor {
	t.Helper()
	var ts []safetensors.Tensor
next:
	for _, n := range set.Names() {
		for _, d := range drop {
			if strings.HasPrefix(n, d) {
				continue next
			}
		}
		info, _ := set.Info(n)
		b, err := set.Bytes(n)
		if err != nil {
			t.Fatal(err)
		}
		name := n
		for _, p := range prefixes {
			if rest, ok := strings.CutPrefix(n, p[0]); ok {
				name = p[1] + rest
				break
			}
		}
		ts = append(ts, safetensors.Tensor{Name: name, DType: info.DType, Shape: info.Shape, Data: b})
	}
	return ts
}

// layout452 renames the Hub's layout of a Gemma3ForConditionalGeneration
// to the one transformers 4.52–4.57 saved (parity/archs' NEW_PREFIXES).
var layout452 = [][2]string{{"language_model.model.", "model.language_model."}, {"vision_tower.", "model.vision_tower."},
	{"multi_modal_projector.", "model.multi_modal_projector."}, {"language_model.lm_head.", "lm_head."}}

// TestWrappedLayouts: a Gemma3ForConditionalGeneration scores as its text
// model (TestArchsMatchTransformers compares it with transformers) with
// the same bits in transformers 4.52's tensor layout, and without its
// vision tensors; a text_config holding only the keys that differ from
// transformers' defaults (as the Hub's configs do) reads the same model;
// a wrapper tensor under no known prefix is named as unexpected.
func TestWrappedLayouts(t *testing.T) {
	reqs := testutil.ReadJSONL[scoreReq](t, filepath.Join(testdata, "archs", "requests.jsonl"))
	want := loadTestModel(t, gemma3mmDir, nil).score(t, reqs, -1)
	sparse := sparseTextConfig(t)
	for name, dir := range map[string]string{
		"transformers 4.52 layout": copyRenamed(t, gemma3mmDir, nil, layout452),
		"no vision tensors":        copyRenamed(t, gemma3mmDir, nil, nil, "vision_tower.", "multi_modal_projector."),
		"sparse text_config":       copyRenamed(t, gemma3mmDir, sparse, nil),
	} {
		if d := maxDiffRuns(loadTestModel(t, dir, nil).score(t, reqs, -1), want); d != 0 {
			t.Errorf("%s: log-probs differ from the checkpoint's by %g", name, d)
		}
	}
	cfg, set := openBnb(t, copyRenamed(t, gemma3mmDir, nil, [][2]string{{"vision_tower.", "audio_tower."}}))
	if err := CheckTensors(cfg, set); !errs.IsBadInput(err) || !strings.Contains(err.Error(), "unexpected tensor audio_tower.") {
		t.Errorf("unknown tensor prefix: %v, want a bad-input error naming audio_tower", err)
	}
}

// sparseTextConfig is gemma3mm's config.json with text_config reduced to
// the keys whose values differ from transformers' Gemma3TextConfig
// defaults (text_defaults.json).
func sparseTextConfig(t *testing.T) []byte {
	t.Helper()
	var cfg, defaults map[string]any
	testutil.ReadJSON(t, filepath.Join(gemma3mmDir, ConfigFile), &cfg)
	testutil.ReadJSON(t, filepath.Join(gemma3mmDir, "text_defaults.json"), &defaults)
	text := cfg["text_config"].(map[string]any)
	kept := 0
	for k, v := range text {
		if dv, ok := defaults[k]; ok && jsonEqual(t, v, dv) {
			delete(text, k)
			continue
		}
		kept++
	}
	if kept == len(text)+len(defaults) || len(text) == 0 {
		t.Fatalf("sparse text_config kept %d keys", kept)
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWrappedDefaultsMatchTransformers: every default the wrapper fills
// into text_config is transformers' Gemma3TextConfig's (the rotary bases
// as its rope_parameters hold them).
func TestWrappedDefaultsMatchTransformers(t *testing.T) {
	var ref map[string]any
	testutil.ReadJSON(t, filepath.Join(gemma3mmDir, "text_defaults.json"), &ref)
	rope := ref["rope_parameters"].(map[string]any)
	ref["rope_theta"] = rope["full_attention"].(map[string]any)["rope_theta"]
	ref["rope_local_base_freq"] = rope["sliding_attention"].(map[string]any)["rope_theta"]
	var ours map[string]any
	if err := json.Unmarshal([]byte(wrappers["Gemma3ForConditionalGeneration"].defaults), &ours); err != nil {
		t.Fatal(err)
	}
	for k, v := range ours {
		if rv, ok := ref[k]; !ok || !jsonEqual(t, v, rv) {
			t.Errorf("default %s = %v, transformers' Gemma3TextConfig has %v", k, v, rv)
		}
	}
}

// TestWrappedConfigErrors: a wrapper without text_config is one bad-input
// line naming it.
func TestWrappedConfigErrors(t *testing.T) {
	_, err := ParseConfig("config.json", []byte(`{"architectures": ["Gemma3ForConditionalGeneration"]}`))
	if !errs.IsBadInput(err) || !strings.Contains(err.Error(), "text_config") {
		t.Errorf("no text_config: %v", err)
	}
}

// TestWrappedLoRA: an adapter saved by PEFT on a Gemma3ForConditionalGeneration
// names its modules under the wrapper (base_model.model.model.language_model.…
// with transformers 5, base_model.model.language_model.model.… before
// 4.52) and may adapt the vision tower too: both namings give the same
// log-probs, the vision modules are left out, and merged equals separate.
func TestWrappedLoRA(t *testing.T) {
	reqs := testutil.ReadJSONL[scoreReq](t, filepath.Join(testdata, "archs", "requests.jsonl"))[:5]
	raw, err := safetensors.Open(gemma3mmDir) // the Hub's names, vision tower included
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	hub := randomAdapter(t, raw)
	v5 := copyAdapterRenamed(t, hub, [][2]string{{peftPrefix + "language_model.model.", peftPrefix + "model.language_model."},
		{peftPrefix + "vision_tower.vision_model.", peftPrefix + "model.vision_tower."}})
	base := loadTestModel(t, gemma3mmDir, nil).score(t, reqs, -1)
	var runs [][][]float64
	_, set := openBnb(t, gemma3mmDir) // as Load opens it
	for _, dir := range []string{hub, v5} {
		a, err := LoadAdapter(dir, set)
		if err != nil {
			t.Fatal(err)
		}
		for m := range a.Layers {
			if !strings.HasPrefix(m, "model.layers.") {
				t.Errorf("adapter layer %s: not a text model weight", m)
			}
		}
		if n := len(a.Layers); n != 4*7 {
			t.Errorf("%d adapted weights, want the text model's 28", n)
		}
		merged := loadTestModel(t, gemma3mmDir, a.MergeInto).score(t, reqs, -1)
		sep := loadTestModel(t, gemma3mmDir, nil)
		if err := LoadAdapterVariables(sep.ctx, sep.backend, a, 0, dtypes.Float32); err != nil {
			t.Fatal(err)
		}
		if d := maxDiffRuns(merged, sep.score(t, reqs, 0)); d > 1e-5 {
			t.Errorf("merged vs separate %g", d)
		}
		if d := maxDiffRuns(merged, base); d < 1e-2 {
			t.Errorf("adapter vs base %g: no visible change", d)
		}
		runs = append(runs, merged)
	}
	if d := maxDiffRuns(runs[0], runs[1]); d != 0 {
		t.Errorf("the two namings differ by %g", d)
	}
}

// copyAdapterRenamed is copyRenamed for an adapter folder.
func copyAdapterRenamed(t *testing.T, src string, prefixes [][2]string) string {
	t.Helper()
	set, err := safetensors.OpenFile(filepath.Join(src, AdapterWeightsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	ts := renamedTensors(t, set, prefixes)
	cfg, err := os.ReadFile(filepath.Join(src, AdapterConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	return writeAdapter(t, string(cfg), ts)
}

// jsonEqual reports whether two decoded JSON values are equal.
func jsonEqual(t *testing.T, a, b any) bool {
	t.Helper()
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return string(x) == string(y)
}
