package models

import (
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/models/safetensors"
)

func TestCheckTensorsFixtures(t *testing.T) {
	fx := fixturesDir(t)
	for _, name := range []string{"tiny-llama", "tiny-llama32", "tiny-qwen2", "tiny-qwen3", "tiny-qwen2-merged"} {
		dir := filepath.Join(fx, name)
		c, err := LoadConfig(dir)
		if err != nil {
			t.Fatal(err)
		}
		s, err := safetensors.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckTensors(c, s); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if got, want := len(s.Names()), len(ExpectedTensors(c)); got != want {
			t.Errorf("%s: %d tensors, expected %d", name, got, want)
		}
		s.Close()
	}
}
