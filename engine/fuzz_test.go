package engine

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/models/tokenizer"
)

// FuzzGenerationConfig reads arbitrary bytes as generation_config.json
// with both of its readers, the engine's (readGenerationEOS) and the
// tokenizer's (Load, EOSIDs): no panic, errors are bad input, and the two
// agree on whether the file is valid and on its EOS ids.
func FuzzGenerationConfig(f *testing.F) {
	for _, n := range []string{"tiny-llama", "tiny-llama32", "tiny-qwen2", "tiny-qwen3"} {
		b, err := os.ReadFile(testutil.Fixture(f, n, "generation_config.json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"eos_token_id": [1, 2, 2]}`))
	f.Add([]byte(`{"eos_token_id": null}`))
	f.Add([]byte(`{"eos_token_id": 4294967296}`))
	f.Add([]byte(`{"eos_token_id": [1.5]}`))
	dir := f.TempDir()
	// A one-token tokenizer with no eos_token, so EOSIDs is the file's ids.
	tok := []byte(`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}}`)
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), tok, 0o644); err != nil {
		f.Fatal(err)
	}
	path := filepath.Join(dir, "generation_config.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ids, err := readGenerationEOS(path)
		if err != nil && !errs.IsBadInput(err) {
			t.Fatalf("error is not bad input: %v", err)
		}
		tk, terr := tokenizer.Load(dir)
		if terr != nil && !errs.IsBadInput(terr) {
			t.Fatalf("tokenizer error is not bad input: %v", terr)
		}
		if (err == nil) != (terr == nil) {
			t.Fatalf("engine: %v; tokenizer: %v", err, terr)
		}
		if err != nil {
			return
		}
		want := slices.Compact(slices.Sorted(slices.Values(ids)))
		got := slices.Sorted(slices.Values(tk.EOSIDs()))
		if !slices.Equal(got, want) {
			t.Fatalf("engine reads eos ids %v, tokenizer %v", want, got)
		}
	})
}
