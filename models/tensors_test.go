package models

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/safetensors"
)

// doctor rewrites the tiny llama checkpoint in dir with edit applied to its
// tensor list and returns the check's error.
func doctor(t *testing.T, c *Config, src *safetensors.Set, edit func([]safetensors.Tensor) []safetensors.Tensor) error {
	t.Helper()
	var ts []safetensors.Tensor
	for _, n := range src.Names() {
		info, _ := src.Info(n)
		b, _ := src.Bytes(n)
		ts = append(ts, safetensors.Tensor{Name: n, DType: info.DType, Shape: info.Shape, Data: b})
	}
	dir := t.TempDir()
	if err := safetensors.Write(filepath.Join(dir, "model.safetensors"), edit(ts), nil); err != nil {
		t.Fatal(err)
	}
	s, err := safetensors.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return CheckTensors(c, s)
}

func TestCheckTensorsDoctored(t *testing.T) {
	c, src := synthT(t, tinyOpts("llama", t.TempDir()))
	const up = "model.layers.1.mlp.up_proj.weight"
	cases := []struct {
		name string
		edit func([]safetensors.Tensor) []safetensors.Tensor
		want string
	}{
		{"missing", func(ts []safetensors.Tensor) []safetensors.Tensor {
			out := ts[:0]
			for _, x := range ts {
				if x.Name != up {
					out = append(out, x)
				}
			}
			return out
		}, "model.safetensors: missing tensor " + up},
		{"extra", func(ts []safetensors.Tensor) []safetensors.Tensor {
			return append(ts, safetensors.Tensor{Name: "model.layers.2.mlp.up_proj.weight", DType: "F32", Shape: []int{1}, Data: make([]byte, 4)})
		}, "model.safetensors: unexpected tensor model.layers.2.mlp.up_proj.weight"},
		{"shape", func(ts []safetensors.Tensor) []safetensors.Tensor {
			for i := range ts {
				if ts[i].Name == up {
					ts[i].Shape = []int{ts[i].Shape[1], ts[i].Shape[0]}
				}
			}
			return ts
		}, "tensor " + up + " has shape [32 48], " + c.Path + " implies [48 32]"},
		{"ignored rotary cache", func(ts []safetensors.Tensor) []safetensors.Tensor {
			return append(ts, safetensors.Tensor{Name: "model.layers.0.self_attn.rotary_emb.inv_freq", DType: "F32", Shape: []int{1}, Data: make([]byte, 4)})
		}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := doctor(t, c, src, tc.edit)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !errs.IsBadInput(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want bad input containing %q", err, tc.want)
			}
		})
	}
}
