package goeval

import (
	"sort"

	"github.com/goeval/goeval/internal/py"
)

// RunSettings are the run-level settings a results file records in its
// "config" block.
type RunSettings struct {
	Model          string         // --model (model_args pretrained)
	DType          string         // model_args dtype
	BatchSize      any            // an int, or "auto"
	Device         string         // cpu, cuda, …
	Limit          float64        // 0 = none (written as null)
	BootstrapIters int            // <= 0 is written as 0
	GenKwargs      map[string]any // --gen-kwargs (written sorted; {} when none)
	Seeds          [4]any         // random, numpy, torch, fewshot (int64 or nil)
}

// RunConfig is the results file's "config" block in lm-eval's key order.
// lm-eval's HF-model keys (model_num_parameters, model_dtype,
// model_revision, model_sha) have no goeval equivalent and are left out.
func RunConfig(s RunSettings) *py.Map[any] {
	var limit any
	if s.Limit > 0 {
		limit = s.Limit
	}
	gen := py.NewMap[any]()
	keys := make([]string, 0, len(s.GenKwargs))
	for k := range s.GenKwargs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		gen.Set(k, s.GenKwargs[k])
	}
	args := py.NewMap[any]()
	args.Set("pretrained", s.Model)
	args.Set("dtype", s.DType)
	c := py.NewMap[any]()
	for _, kv := range []struct {
		k string
		v any
	}{{"model", "goeval"}, {"model_args", args}, {"batch_size", s.BatchSize}, {"batch_sizes", []any{}},
		{"device", s.Device}, {"use_cache", nil}, {"limit", limit}, {"bootstrap_iters", max(s.BootstrapIters, 0)},
		{"gen_kwargs", gen}, {"random_seed", s.Seeds[0]}, {"numpy_seed", s.Seeds[1]}, {"torch_seed", s.Seeds[2]},
		{"fewshot_seed", s.Seeds[3]}} {
		c.Set(kv.k, kv.v)
	}
	return c
}
