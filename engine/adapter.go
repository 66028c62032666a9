package engine

import (
	"fmt"
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models"
)

// Adapter modes (Options.AdapterMode).
const (
	// AdapterMerged adds scale·B·A into the base weights at load (default).
	// One adapter per Engine.
	AdapterMerged = models.AdapterMerged
	// AdapterSeparate keeps the factors apart and computes x·Aᵀ·Bᵀ·scale in
	// the graph next to each base projection; several adapters share one
	// copy of the base weights (see WithAdapter).
	AdapterSeparate = models.AdapterSeparate
	// AdapterAuto is ResolveAdapterMode's choice by the number of models
	// a run evaluates.
	AdapterAuto = "auto"
)

// ResolveAdapterMode resolves AdapterAuto for a run of n models (a base
// and its adapters): separate when there are several (the base weights
// are loaded once and shared), merged for a single adapted model. Other
// modes are returned as given.
func ResolveAdapterMode(mode string, n int) string {
	if mode != AdapterAuto {
		return mode
	}
	if n > 1 {
		return AdapterSeparate
	}
	return AdapterMerged
}

// WithAdapter returns a view of e that scores with separate-mode adapter i
// of Options.Adapters (-1: the base model without any adapter). It shares
// the weights, backend, tokenizer and options with e and has its own
// compiled graphs and stats; closing it frees only those. Closing e closes
// its views that are still open first, so a view never outlives the
// weights. Use e and its views from one goroutine at a time: they share one
// context.
func (e *Engine) WithAdapter(i int) (*Engine, error) {
	if i < -1 || i >= e.numAdapters {
		return nil, errs.BadInputf("adapter index %d out of range: the engine holds %d separate-mode adapters (-1 is the base model)", i, e.numAdapters)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ctx == nil {
		return nil, fmt.Errorf("engine is closed")
	}
	v := &Engine{opts: e.opts, dir: e.dir, cfg: e.cfg, model: models.WithAdapter(e.model, i), tok: e.tok, backend: e.backend,
		spec: e.spec, device: e.device, fixShapes: e.fixShapes, ctx: e.ctx, prec: e.prec, softmax: e.softmax, lpRound: e.lpRound, maxLen: e.maxLen, batch: e.batch, prefix: e.prefix,
		seen: map[string]bool{}, view: true, adapter: i, numAdapters: e.numAdapters, prefixes: e.newPrefixes()}
	v.stats.Backend, v.stats.BackendName = e.stats.Backend, e.stats.BackendName
	e.views = append(e.views, v)
	return v, nil
}

// Adapter is the index of the adapter this engine applies (-1: none).
func (e *Engine) Adapter() int { return e.adapter }

// safeGoSpec adds "ops_sequential" to a pure-Go backend spec that names
// no ops_ option. simplego v0.26 runs independent ops in parallel on a
// worker pool (2 × NumCPU slots) that each DotGeneral then waits on for its
// own chunks: four or more independent matmuls ready at once (Phi's
// q/k/v + fc1, any model with separate-mode LoRA branches) take every slot
// and deadlock (seen on 2 CPUs). Sequential ops keep the matmuls' own
// parallelism.
func safeGoSpec(spec string) string {
	switch {
	case strings.Contains(spec, "ops_"):
		return spec
	case spec == "go":
		return "go:ops_sequential"
	case strings.HasPrefix(spec, "go:"):
		return spec + ",ops_sequential"
	}
	return spec
}
