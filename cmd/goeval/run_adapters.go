package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	goevalpkg "github.com/goeval/goeval"
	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/errs"
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

Interrupted runs: with --use-cache DIR every answered request is committed to DIR (one file per model
identity: checkpoint files, adapters, dtype, device), so running the same command again after a crash
or Ctrl-C recomputes only what was lost. A sweep or multi-adapter run with --output-path skips each
model whose results of the same tasks and settings are already there; --overwrite evaluates them again
and then removes the older files.

Progress goes to stderr: a bar on a terminal; elsewhere (CI, nohup, Slurm logs) a "progress:" line
when the requests start, at most one every 30 s (GOEVAL_PROGRESS_INTERVAL=10s changes it) and one
when they are done.

Flags:
`

// validateAdapters checks --adapter, --adapter-mode and --skip-base.
func (f *runFlags) validateAdapters() error {
	switch f.adapterMode {
	case goevalpkg.AdapterAuto, goevalpkg.AdapterMerged, goevalpkg.AdapterSeparate:
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
		if _, err := os.Stat(filepath.Join(a, "adapter_config.json")); err != nil && !isHubID(a) {
			return errs.BadInputf("--adapter %s: no adapter_config.json there; give a PEFT adapter directory", a)
		}
		if seen[a] {
			return errs.BadInputf("--adapter %q given twice: each adapter writes its own results folder", a)
		}
		seen[a] = true
	}
	return nil
}

// runAdapters evaluates base and its --adapter list, one results folder per
// model (see goeval.AdapterTargets and engine.Family).
func runAdapters(ctx context.Context, f *runFlags, base string, opts goevalpkg.Options, seeds []any, gk map[string]any) error {
	targets := goevalpkg.AdapterTargets(base, f.adapters, f.skipBase)
	mode := goevalpkg.ResolveAdapterMode(f.adapterMode, len(targets))
	todo := targets[:0:0]
	for _, t := range targets {
		if skip, err := f.skipExisting(t, len(targets), opts, seeds, gk); err != nil {
			return fmt.Errorf("%s: %w", t.Label(), err)
		} else if !skip {
			todo = append(todo, t)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	fam, err := engine.OpenFamily(f.hub.localDir(base), f.hub.localDirs(f.adapters), mode, f.engineOptions())
	if err != nil {
		return err
	}
	defer fam.Close()
	for i, t := range targets {
		if !slices.Contains(todo, t) {
			continue
		}
		if len(targets) > 1 {
			fmt.Fprintf(os.Stderr, "== model %d/%d: %s (%s adapter mode)\n", i+1, len(targets), t.Label(), mode)
		}
		if err := runAdapterTarget(ctx, f, fam, t, opts, seeds, gk); err != nil {
			return fmt.Errorf("%s: %w", t.Label(), err)
		}
	}
	return nil
}

// runAdapterTarget evaluates one target of the family.
func runAdapterTarget(ctx context.Context, f *runFlags, fam *engine.Family, t goevalpkg.Target, opts goevalpkg.Options, seeds []any, gk map[string]any) error {
	m, err := fam.Open(t.Index)
	if err != nil {
		return err
	}
	defer m.Close()
	return evaluateLM(ctx, f, t, engineModel(m), opts, seeds, gk)
}
