package engine

import (
	"fmt"
	"strings"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models"
	"github.com/goeval/goeval/models/safetensors"
)

// Adapter modes (Options.AdapterMode).
const (
	// AdapterMerged adds scale·B·A into the base weights at load (default).
	// One adapter per Engine.
	AdapterMerged = "merged"
	// AdapterSeparate keeps the factors apart and computes x·Aᵀ·Bᵀ·scale in
	// the graph next to each base projection; several adapters share one
	// copy of the base weights (see WithAdapter).
	AdapterSeparate = "separate"
)

// adapterMode resolves Options.AdapterMode.
func (o Options) adapterMode() (string, error) {
	switch o.AdapterMode {
	case "", AdapterMerged:
		return AdapterMerged, nil
	case AdapterSeparate:
		return AdapterSeparate, nil
	}
	return "", errs.BadInputf("adapter mode %q is not supported (use merged or separate)", o.AdapterMode)
}

// loadAdapters reads Options.Adapters against the base checkpoint. In
// merged mode it returns the weight transform for LoadWeightsWith; in
// separate mode it returns the adapters, to be stored after the weights.
func (e *Engine) loadAdapters(set *safetensors.Set) (models.WeightTransform, []*models.Adapter, error) {
	if len(e.opts.Adapters) == 0 {
		return nil, nil, nil
	}
	mode, err := e.opts.adapterMode()
	if err != nil {
		return nil, nil, err
	}
	if mode == AdapterMerged && len(e.opts.Adapters) > 1 {
		return nil, nil, errs.BadInputf("%d adapters in merged mode: merged mode takes one adapter; use adapter mode separate to serve several from one copy of the base weights", len(e.opts.Adapters))
	}
	var list []*models.Adapter
	for _, dir := range e.opts.Adapters {
		a, err := models.LoadAdapter(dir, set)
		if err != nil {
			return nil, nil, err
		}
		e.opts.logf("adapter %d: %s (%s mode)", len(list), a, mode)
		list = append(list, a)
	}
	if mode == AdapterMerged {
		return list[0].MergeInto, nil, nil
	}
	return nil, list, nil
}

// storeAdapters puts separate-mode adapters into the context and makes the
// engine apply the first one.
func (e *Engine) storeAdapters(list []*models.Adapter, dtype dtypes.DType) error {
	for i, a := range list {
		if err := models.LoadAdapterVariables(e.ctx, e.backend, a, i, dtype); err != nil {
			return err
		}
	}
	if len(list) > 0 {
		e.numAdapters, e.adapter = len(list), 0
		e.model = models.WithAdapter(e.model, 0)
	}
	return nil
}

// WithAdapter returns an Engine that scores with separate-mode adapter i of
// Options.Adapters (-1: the base model without any adapter). It shares the
// weights, backend and options with e and has its own compiled graphs and
// stats; closing it frees only those. Use e and its views from one
// goroutine at a time: they share one context.
func (e *Engine) WithAdapter(i int) (*Engine, error) {
	if i < -1 || i >= e.numAdapters {
		return nil, errs.BadInputf("adapter index %d out of range: the engine holds %d separate-mode adapters (-1 is the base model)", i, e.numAdapters)
	}
	if e.ctx == nil {
		return nil, fmt.Errorf("engine is closed")
	}
	v := &Engine{opts: e.opts, cfg: e.cfg, model: models.WithAdapter(e.model, i), backend: e.backend,
		spec: e.spec, ctx: e.ctx, maxLen: e.maxLen, batch: e.batch, prefix: e.prefix,
		execs: map[bool]*mlctx.Exec{}, seen: map[string]bool{}, view: true,
		adapter: i, numAdapters: e.numAdapters}
	v.stats.Backend, v.stats.BackendName = e.stats.Backend, e.stats.BackendName
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
