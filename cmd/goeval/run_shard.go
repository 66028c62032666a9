package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	goevalpkg "github.com/goeval/goeval"
	"github.com/goeval/goeval/internal/buildinfo"
	"github.com/goeval/goeval/internal/env"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm/lmcache"
	"github.com/goeval/goeval/report"
)

// More than one process or device: --shard (this file: one part of a
// run's documents, written to a shard folder that goeval merge reads) and
// --devices (run_devices.go).

// scaleFlags are goeval run's --shard and --devices as given.
type scaleFlags struct {
	shard, devices string
}

const shardHelp = "evaluate one shard of the run: INDEX/COUNT (from 0, e.g. 2/4), or auto: the scheduler's task index " +
	"(SLURM_ARRAY_TASK_ID, else Kubernetes' JOB_COMPLETION_INDEX) of GOEVAL_SHARD_COUNT shards (else SLURM_ARRAY_TASK_COUNT). " +
	"Each task's documents are split by estimated tokens, a document always to the same shard whatever --limit is; the shard writes " +
	"its samples and shard.json to --output-path/<model>/shard-INDEX-of-COUNT/ (no results file) and, with --use-cache DIR, caches " +
	"in DIR/shard-INDEX-of-COUNT/, so a failed shard re-runs alone. Then 'goeval merge OUTPUT_PATH' writes the run's files. " +
	"Default: $GOEVAL_SHARD, else the whole run"

// defineScaleFlags adds --shard and --devices to goeval run's flags.
func defineScaleFlags(fs *flag.FlagSet, s *scaleFlags) {
	fs.StringVar(&s.shard, "shard", "", shardHelp)
	fs.StringVar(&s.devices, "devices", "all", devicesHelp)
}

// planScale settles --devices and --shard. It runs last in planRun (the
// datasets' folder is known then).
func (p *runPlan) planScale(f *runFlags) error {
	if err := p.planDevices(f); err != nil {
		return err
	}
	return p.planShard(f)
}

// planShard settles --shard: the shard, its cache folder and the settings
// its manifest records.
func (p *runPlan) planShard(f *runFlags) error {
	sh, err := resolveShard(f)
	if err != nil || !sh.On() {
		return err
	}
	switch {
	case f.out == "":
		return errs.BadInputf("--shard needs --output-path: the shard's samples and manifest go there")
	case f.lmeval.writeOut || f.lmeval.showConfig:
		return errs.BadInputf("--shard prints no results: drop --write_out and --show_config (goeval merge writes the run's files)")
	}
	p.eval.Shard = sh
	if p.out.cache != "" {
		p.out.cache = filepath.Join(p.out.cache, report.ShardDirName(sh.Index, sh.Count))
		if err := lmcache.Check(p.out.cache); err != nil {
			return err
		}
	}
	p.shardRun, err = shardSettings(f, p.eval)
	return err
}

// resolveShard is --shard, else $GOEVAL_SHARD: none, INDEX/COUNT or auto.
func resolveShard(f *runFlags) (goevalpkg.Shard, error) {
	v, from := f.scale.shard, "--shard"
	if !slices.Contains(f.given, "shard") {
		v, from = env.Shard.Get(), env.Shard.Name
	}
	switch v = strings.TrimSpace(v); v {
	case "", "none":
		return goevalpkg.Shard{}, nil
	case "auto":
		return shardFromScheduler()
	}
	sh, err := goevalpkg.ParseShard(v)
	if err != nil {
		return sh, errs.BadInputf("%s: %w", from, err)
	}
	return sh, nil
}

// shardFromScheduler is --shard auto: the index of a Slurm array task or
// of a Kubernetes Indexed Job's pod, and the count.
func shardFromScheduler() (goevalpkg.Shard, error) {
	index, from := env.SlurmArrayTaskID, env.SlurmArrayTaskID
	if index.Get() == "" {
		index, from = env.JobCompletionIndex, env.JobCompletionIndex
	}
	if index.Get() == "" {
		return goevalpkg.Shard{}, errs.BadInputf("--shard auto: neither %s (a Slurm job array task) nor %s (a Kubernetes Indexed Job's pod) is set",
			env.SlurmArrayTaskID.Name, env.JobCompletionIndex.Name)
	}
	count := env.ShardCount
	if count.Get() == "" && from == env.SlurmArrayTaskID {
		if lo := env.SlurmArrayTaskMin.Get(); lo != "" && lo != "0" {
			return goevalpkg.Shard{}, errs.BadInputf("--shard auto: the job array starts at %s=%s: submit it as --array=0-<N-1>, or set %s",
				env.SlurmArrayTaskMin.Name, lo, env.ShardCount.Name)
		}
		count = env.SlurmArrayTaskCount
	}
	if count.Get() == "" {
		return goevalpkg.Shard{}, errs.BadInputf("--shard auto: %s is set, but not the shard count: set %s (Kubernetes gives an Indexed Job's pods no variable holding its completions)",
			from.Name, env.ShardCount.Name)
	}
	i, err1 := strconv.Atoi(strings.TrimSpace(index.Get()))
	n, err2 := strconv.Atoi(strings.TrimSpace(count.Get()))
	sh := goevalpkg.Shard{Index: i, Count: n}
	if err1 != nil || err2 != nil || n < 1 || sh.Validate() != nil {
		return goevalpkg.Shard{}, errs.BadInputf("--shard auto: %s=%q of %s=%q is no shard (want 0 ≤ index < count)", from.Name, index.Get(), count.Name, count.Get())
	}
	return sh, nil
}

// shardSettings are the evaluation settings a shard's manifest records,
// its paths absolute (goeval merge may run elsewhere).
func shardSettings(f *runFlags, o goevalpkg.Options) (report.EvalSettings, error) {
	var err error
	abs := func(p string) string {
		if p == "" || err != nil {
			return p
		}
		var a string
		a, err = filepath.Abs(p)
		return a
	}
	var include []string
	for _, d := range strings.Split(f.includePath, ",") {
		if d = strings.TrimSpace(d); d != "" {
			include = append(include, abs(d))
		}
	}
	taskNames := slices.Clone(o.Tasks)
	for i, t := range taskNames {
		if strings.HasSuffix(t, ".yaml") || strings.HasSuffix(t, ".yml") {
			taskNames[i] = abs(t)
		}
	}
	t := o.Task
	s := report.EvalSettings{Tasks: taskNames, IncludePath: strings.Join(include, ","), DataDir: abs(t.DataDir),
		HubCache: abs(t.HubCache), NumFewshot: t.NumFewshot, Limit: t.Limit, FewshotSeed: t.Seed,
		ApplyChatTemplate: t.ApplyChatTemplate, FewshotAsMultiturn: t.FewshotAsMultiturn, SystemInstruction: t.SystemInstruction,
		GenKwargs: f.genKwargs, Samples: t.Samples, BootstrapIters: o.BootstrapIters, LogSamples: f.logSamples,
		Python: f.python.path, PythonTimeout: f.python.timeout.Seconds()}
	if strings.ContainsRune(s.Python, filepath.Separator) { // a path (a name on PATH stays as given)
		s.Python = abs(s.Python)
	}
	return s, err
}

// writeShard writes target t's shard folder: its samples (every filter)
// and manifest.
func (r *runner) writeShard(t goevalpkg.Target, m openedModel, res *goevalpkg.Results, info report.RunInfo, cache lmcache.Stats) error {
	p := r.plan
	sh := p.eval.Shard
	id, err := modelIdentity(m)
	if err != nil {
		return err
	}
	header, err := report.EncodeRunInfo(info)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	man := &report.ShardManifest{GoevalVersion: buildinfo.Version(), GitHash: buildinfo.GitHash(), Index: sh.Index, Count: sh.Count,
		ModelName: t.Name, ModelIdentity: id, Seeds: report.SeedsText(info.Settings.Seeds), Run: p.shardRun, Info: header,
		Host: host, Started: res.Start, Seconds: res.Duration.Seconds(), Reused: cache.Hits, Computed: cache.Computed}
	docs, runDocs, tokens, runTokens := 0, 0, 0, 0
	for _, tr := range res.Tasks {
		st, err := report.ShardTaskOf(tr)
		if err != nil {
			return err
		}
		man.Tasks = append(man.Tasks, st)
		docs, runDocs, tokens, runTokens = docs+len(st.Docs), runDocs+st.RunDocs, tokens+st.Tokens, runTokens+st.RunTokens
	}
	_, samples, err := report.FromResults(res, info)
	if err != nil {
		return err
	}
	dir := filepath.Join(p.out.dir, report.SanitizeModelName(t.Name), report.ShardDirName(sh.Index, sh.Count))
	if err := report.WriteShard(dir, man, samples); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "shard %s: %d of the run's %d documents, %.1f%% of its estimated tokens; samples and %s written to %s\n",
		sh, docs, runDocs, 100*float64(tokens)/float64(max(runTokens, 1)), report.ShardManifestName, dir)
	return nil
}

// modelIdentity is what a shard manifest records of the model's identity:
// the engine's (content, not file times), an API model's cache key, or
// "fake".
func modelIdentity(m openedModel) (string, error) {
	switch {
	case m.apiKey != "":
		sum := sha256.Sum256([]byte(m.apiKey))
		return hex.EncodeToString(sum[:]), nil
	case m.eng == nil:
		return "fake", nil
	}
	return m.eng.Identity()
}
