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

// validateAdapters checks --adapter, --adapter-mode and --skip-base.
func (f *runFlags) validateAdapters() error {
	switch f.adapterMode {
	case engine.AdapterAuto, engine.AdapterMerged, engine.AdapterSeparate:
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

// runFamily evaluates the plan's base and adapters, one results folder per
// model (see goeval.AdapterTargets and engine.Family).
func (r *runner) runFamily(ctx context.Context) error {
	p := r.plan
	todo := p.targets[:0:0]
	for _, t := range p.targets {
		if skip, err := r.skipExisting(t); err != nil {
			return fmt.Errorf("%s: %w", t.Label(), err)
		} else if !skip {
			todo = append(todo, t)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	fam, err := engine.OpenFamily(p.hub.localDir(p.targets[0].Base), p.hub.localDirs(p.adapters), p.adapterMode, p.engine)
	if err != nil {
		return err
	}
	defer fam.Close()
	for i, t := range p.targets {
		if !slices.Contains(todo, t) {
			continue
		}
		if len(p.targets) > 1 {
			fmt.Fprintf(os.Stderr, "== model %d/%d: %s (%s adapter mode)\n", i+1, len(p.targets), t.Label(), p.adapterMode)
		}
		if err := r.runFamilyTarget(ctx, fam, t); err != nil {
			return fmt.Errorf("%s: %w", t.Label(), err)
		}
	}
	return nil
}

// runFamilyTarget evaluates one target of the family.
func (r *runner) runFamilyTarget(ctx context.Context, fam *engine.Family, t goevalpkg.Target) error {
	m, err := fam.Open(t.Index)
	if err != nil {
		return err
	}
	defer m.Close()
	return r.evaluate(ctx, t, engineModel(m))
}
