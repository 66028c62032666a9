package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	goevalpkg "github.com/goeval/goeval"
	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/report"
)

// runUsage heads goeval run --help.
const runUsage = `Usage: goeval run --model DIR|fake --tasks a,b [flags]
Evaluates the model and prints lm-eval's summary table; with --output-path writes lm-eval-compatible
files under --output-path/<model name, sanitized>/ (e.g. /m/qwen -> __m__qwen).

Checkpoint sweep: --model a,b,ckpts/step-* evaluates each directory in turn, one results folder each.

LoRA adapters: --model BASE --adapter A [--adapter B …] evaluates BASE, then BASE with A, then BASE
with B (--skip-base: the adapters only). When more than one model is evaluated, the default adapter
mode is separate: BASE's weights are loaded once and shared by every model. Each model gets its own
results (and samples) folder, named as lm-eval names a peft run: BASE's under <BASE sanitized>/, an
adapter's under <adapter dir sanitized>/, whose results record model_name = the adapter directory and
config.model_args = {pretrained: BASE, peft: A, dtype}. Example:
  goeval run --model qwen --adapter ft/a --adapter ft/b --tasks arc_easy --output-path res
writes res/qwen/, res/ft__a/ and res/ft__b/; then: goeval compare res/qwen res/ft__a res/ft__b

Flags:
`

// validateAdapters checks --adapter, --adapter-mode and --skip-base.
func (f *runFlags) validateAdapters() error {
	switch f.adapterMode {
	case "auto", engine.AdapterMerged, engine.AdapterSeparate:
	default:
		return errs.BadInputf("--adapter-mode %q: use auto, merged or separate", f.adapterMode)
	}
	if len(f.adapters) == 0 {
		if f.skipBase {
			return errs.BadInputf("--skip-base needs at least one --adapter")
		}
		return nil
	}
	if f.model == "fake" {
		return errs.BadInputf("--adapter needs a checkpoint directory as --model, not \"fake\"")
	}
	seen := map[string]bool{}
	for _, a := range f.adapters {
		if a == "" {
			return errs.BadInputf("--adapter \"\": give an adapter directory")
		}
		if _, err := os.Stat(filepath.Join(a, "adapter_config.json")); err != nil {
			return errs.BadInputf("--adapter %s: no adapter_config.json there; give a PEFT adapter directory", a)
		}
		if seen[a] {
			return errs.BadInputf("--adapter %q given twice: each adapter writes its own results folder", a)
		}
		seen[a] = true
	}
	return nil
}

// adapterTargets lists what a run with --adapter evaluates, in order: the
// base model (unless --skip-base), then each adapter. An adapter's
// model_name is its directory, as lm-eval's model_name for peft=DIR.
func (f *runFlags) adapterTargets(base string) []runTarget {
	var out []runTarget
	if !f.skipBase {
		out = append(out, runTarget{name: base, base: base, index: -1})
	}
	for i, a := range f.adapters {
		out = append(out, runTarget{name: a, base: base, adapter: a, index: i})
	}
	return out
}

// resolvedAdapterMode resolves --adapter-mode auto for n evaluated models:
// separate when there are several (one load of the base weights), merged
// for a single adapted model.
func (f *runFlags) resolvedAdapterMode(n int) string {
	if f.adapterMode != "auto" {
		return f.adapterMode
	}
	if n > 1 {
		return engine.AdapterSeparate
	}
	return engine.AdapterMerged
}

// runAdapters evaluates base and its --adapter list, one results folder per
// model. Separate mode opens base once, with every adapter, and evaluates a
// WithAdapter view per model; merged mode opens one model at a time (base
// alone, or base with one adapter merged in), closing each before the next.
func runAdapters(ctx context.Context, f *runFlags, base string, opts goevalpkg.Options, seeds []any, gk map[string]any) error {
	targets := f.adapterTargets(base)
	mode := f.resolvedAdapterMode(len(targets))
	var shared *engine.Engine
	if mode == engine.AdapterSeparate {
		eo := f.engineOptions()
		eo.Adapters, eo.AdapterMode = f.adapters, engine.AdapterSeparate
		m, err := engine.Open(base, eo)
		if err != nil {
			return err
		}
		defer m.Close()
		shared = m
	}
	for i, t := range targets {
		if len(targets) > 1 {
			fmt.Fprintf(os.Stderr, "== model %d/%d: %s (%s adapter mode)\n", i+1, len(targets), t.label(), mode)
		}
		if err := runAdapterTarget(ctx, f, shared, t, opts, seeds, gk); err != nil {
			return fmt.Errorf("%s: %w", t.label(), err)
		}
	}
	return nil
}

// runAdapterTarget evaluates one target: a view of shared (separate mode)
// or a model of its own (merged mode, shared == nil).
func runAdapterTarget(ctx context.Context, f *runFlags, shared *engine.Engine, t runTarget, opts goevalpkg.Options, seeds []any, gk map[string]any) error {
	var m *engine.Engine
	var err error
	if shared != nil {
		m, err = shared.WithAdapter(t.index)
	} else {
		eo := f.engineOptions()
		if t.adapter != "" {
			eo.Adapters, eo.AdapterMode = []string{t.adapter}, engine.AdapterMerged
		}
		m, err = engine.Open(t.base, eo)
	}
	if err != nil {
		return err
	}
	defer m.Close()
	if f.chat {
		opts.Task.ChatTemplate = m.ApplyChatTemplate
	}
	return evaluateLM(ctx, f, t, m, report.ModelKeys(m.Info()), opts, seeds, gk)
}

// label names the target in progress lines and errors.
func (t runTarget) label() string {
	if t.adapter == "" {
		return "base " + t.base
	}
	return "adapter " + t.adapter
}
