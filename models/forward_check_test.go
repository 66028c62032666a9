package models

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// TestForwardChecksInputs: Forward panics with a message naming the
// problem on inputs that make no sense together or have the wrong shapes,
// and accepts each of its cases (checked without building the layers).
func TestForwardChecksInputs(t *testing.T) {
	cfg, err := ParseConfig("config.json", []byte(tinyJSON("LlamaForCausalLM", "")))
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := m.(*decoder)
	backend, err := simplego.New("")
	if err != nil {
		t.Fatal(err)
	}
	g := NewGraph(backend, "check")
	n := 0
	param := func(dt dtypes.DType, dims ...int) *Node {
		n++
		return Parameter(g, fmt.Sprint("p", n), shapes.Make(dt, dims...))
	}
	ids := func(dims ...int) *Node { return param(dtypes.Int32, dims...) }
	layers := func(count, s int) []KV {
		kv := make([]KV, count)
		for i := range kv {
			kv[i] = KV{K: param(dtypes.Float32, 2, 2, s, 16), V: param(dtypes.Float32, 2, 2, s, 16)}
		}
		return kv
	}
	tok, pos := ids(2, 5), ids(2, 5)
	pack := &Packing{Node: ids(2, 5), End: ids(2, 5)}
	past := &Past{Pos: ids(2, 8), KV: layers(6, 8)}
	cache := layers(6, 16)
	for _, c := range []struct {
		name string
		in   Inputs
		want string // "": accepted
	}{
		{"rows", Inputs{Tokens: tok}, ""},
		{"rows with padding", Inputs{Tokens: tok, Positions: pos, KeyValid: param(dtypes.Bool, 2, 5)}, ""},
		{"prefill", Inputs{Tokens: tok, ReturnKV: true}, ""},
		{"packed", Inputs{Tokens: tok, Positions: pos, Packing: pack}, ""},
		{"packed after", Inputs{Tokens: tok, Positions: pos, Packing: pack, Past: past}, ""},
		{"decode", Inputs{Tokens: ids(2), Positions: ids(2), Cache: cache}, ""},
		{"extend", Inputs{Tokens: tok, Positions: pos, Cache: cache}, ""},
		{"chunk", Inputs{Tokens: ids(1, 5), Positions: ids(1, 5), Cache: cache, Row: ids(1), Keys: 8}, ""},
		{"chunks of two rows", Inputs{Tokens: tok, Positions: pos, Cache: cache, Row: ids(2)}, ""},
		{"chunks and rows", Inputs{Tokens: tok, Positions: pos, Cache: cache, Row: ids(1)}, "must be [P] with P = 2"},
		{"chunk without a cache", Inputs{Tokens: ids(1, 5), Positions: ids(1, 5), Row: ids(1)}, "Row needs Cache"},
		{"chunk of one token per row", Inputs{Tokens: ids(2), Positions: ids(2), Cache: cache, Row: ids(2)}, "Row needs Cache and Tokens [P, T]"},
		{"chunk's row", Inputs{Tokens: ids(1, 5), Positions: ids(1, 5), Cache: cache, Row: ids(1, 1)}, "must be [P]"},
		{"chunk's keys", Inputs{Tokens: ids(1, 5), Positions: ids(1, 5), Cache: cache, Row: ids(1), Keys: 17}, "T ≤ Keys ≤ S"},
		{"keys without a row", Inputs{Tokens: tok, Positions: pos, Cache: cache, Keys: 8}, "Keys 8 needs Row"},
		{"no tokens", Inputs{}, "Tokens is nil"},
		{"one token per row without a cache", Inputs{Tokens: ids(2)}, "must be [B, T]"},
		{"packed without positions", Inputs{Tokens: tok, Packing: pack}, "need Positions"},
		{"cache without positions", Inputs{Tokens: tok, Cache: cache}, "need Positions"},
		{"packed with padding", Inputs{Tokens: tok, Positions: pos, Packing: pack, KeyValid: param(dtypes.Bool, 2, 5)}, "KeyValid"},
		{"past without packing", Inputs{Tokens: tok, Positions: pos, Past: past}, "Past needs Packing"},
		{"cache and prefill", Inputs{Tokens: tok, Positions: pos, Cache: cache, ReturnKV: true}, "Cache goes with neither"},
		{"cache and packing", Inputs{Tokens: tok, Positions: pos, Cache: cache, Packing: pack}, "Cache goes with neither"},
		{"packed prefill", Inputs{Tokens: tok, Positions: pos, Packing: pack, ReturnKV: true}, "ReturnKV"},
		{"positions' shape", Inputs{Tokens: tok, Positions: ids(2, 4)}, "Positions"},
		{"packing's shape", Inputs{Tokens: tok, Positions: pos, Packing: &Packing{Node: ids(2, 5), End: ids(5)}}, "Packing.End"},
		{"half a packing", Inputs{Tokens: tok, Positions: pos, Packing: &Packing{Node: ids(2, 5)}}, "Node and End"},
		{"past's rows", Inputs{Tokens: tok, Positions: pos, Packing: pack, Past: &Past{Pos: ids(3, 8), KV: past.KV}}, "Past.Pos"},
		{"past's layers", Inputs{Tokens: tok, Positions: pos, Packing: pack, Past: &Past{Pos: past.Pos, KV: layers(5, 8)}}, "5 Past layers"},
		{"cache's layers", Inputs{Tokens: ids(2), Positions: ids(2), Cache: layers(7, 16)}, "7 cache layers"},
	} {
		got := func() (msg string) {
			defer func() {
				if r := recover(); r != nil {
					msg = fmt.Sprint(r)
				}
			}()
			d.check(c.in)
			return ""
		}()
		if c.want == "" && got != "" || !strings.Contains(got, c.want) || c.want != "" && !strings.Contains(got, "models: Forward: ") {
			t.Errorf("%s: check panicked with %q; want %q", c.name, got, c.want)
		}
	}
}
