package synth

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteDeterministicAndDense(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	ids, err := Tokenizer(a, 512)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Tokenizer(b, 512); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"tokenizer.json", "tokenizer_config.json"} {
		x, _ := os.ReadFile(filepath.Join(a, f))
		y, _ := os.ReadFile(filepath.Join(b, f))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs", f)
		}
	}
	var tok struct {
		Model struct {
			Vocab  map[string]int `json:"vocab"`
			Merges []string       `json:"merges"`
		} `json:"model"`
	}
	raw, _ := os.ReadFile(filepath.Join(a, "tokenizer.json"))
	if err := json.Unmarshal(raw, &tok); err != nil {
		t.Fatal(err)
	}
	if got := len(tok.Model.Vocab); got != 512 {
		t.Fatalf("vocab has %d entries, want 512", got)
	}
	seen := make([]bool, 512)
	for s, id := range tok.Model.Vocab {
		if id < 0 || id >= 512 || seen[id] {
			t.Fatalf("token %q has id %d: ids must be dense and unique", s, id)
		}
		seen[id] = true
	}
	if ids["<|endoftext|>"] != 509 || ids["<|im_end|>"] != 511 {
		t.Errorf("special ids = %v, want endoftext 509 … im_end 511", ids)
	}
}

func TestWriteRejectsTinyVocab(t *testing.T) {
	if _, err := Tokenizer(t.TempDir(), 100); err == nil {
		t.Fatal("vocab 100 accepted; it cannot hold the 256 byte tokens")
	}
}
