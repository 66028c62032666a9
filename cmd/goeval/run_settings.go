package main

import (
	"slices"
	"strconv"

	goevalpkg "github.com/goeval/goeval"
	"github.com/goeval/goeval/report"
)

// settings are the run settings target t's results file records in its
// "config" entry (model_args: pretrained, then peft for an adapter, dtype).
// batch_size is the string given on the command line, as lm-eval records
// it, or goeval's default as a number; NumParameters is the caller's.
func (f *runFlags) settings(t goevalpkg.Target, seeds []any, gk map[string]any) report.RunSettings {
	var batch any = f.batch
	if n, err := strconv.Atoi(f.batch); err == nil && !slices.Contains(f.given, "batch-size") {
		batch = n
	}
	rev, sha, peftSHA := f.hub.modelInfo(t.Base, t.Adapter)
	device := f.choice.Device // what --device (auto by default) resolved to
	if f.lmeval.deviceGiven != "" {
		device = f.lmeval.deviceGiven // lm-eval's spelling (cuda:0) as given
	}
	return report.RunSettings{Model: t.Base, Peft: t.Adapter, DType: f.dtype, BatchSize: batch,
		ModelRevision: rev, ModelSHA: sha, PeftSHA: peftSHA, Checkpoint: t.Base != "fake" && !f.api.on(),
		ModelArgs: f.apiModelArgs(), Device: device, Limit: f.limit, BootstrapIters: f.bootstrap, GenKwargs: gk,
		Seeds: [4]any{seeds[0], seeds[1], seeds[2], seeds[3]}}
}
