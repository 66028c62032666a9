package report

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/goeval/goeval"
	"github.com/goeval/goeval/internal/buildinfo"
	"github.com/goeval/goeval/internal/py"
)

// FromResults converts an evaluation's results into lm-eval's results file
// and, when samples were logged, its samples files (task → rows).
func FromResults(r *goeval.Results, info RunInfo) (*Results, map[string][]Sample, error) {
	if info.GitHash == "" {
		info.GitHash = buildinfo.GitHash() // goeval's commit where lm-eval records its own
	}
	out := &Results{ModelSource: "goeval", ModelName: info.ModelName, GitHash: info.GitHash,
		Date: float64(r.Start.UnixNano()) / 1e9, TotalEvalSeconds: strconv.FormatFloat(r.Duration.Seconds(), 'f', -1, 64)}
	config := RunConfig(info.Settings)
	meta := &taskMeta{map[string]any{}, map[string]any{}, map[string]any{}, map[string]any{}}
	for _, t := range r.Tasks {
		cfg, err := taskConfig(t)
		if err != nil {
			return nil, nil, err
		}
		out.Results.Set(t.Name, taskEntry(t))
		out.NSamples.Set(t.Name, NSamples{Original: t.Original, Effective: t.SampleLen})
		meta.configs[t.Name], meta.versions[t.Name] = withModelArgs(cfg, config, info.Metadata, t.Name), t.Version
		meta.shots[t.Name], meta.hib[t.Name] = t.NumFewshot, higherIsBetterMap(t.Metrics)
	}
	for _, g := range r.Groups {
		e := groupEntry(g)
		out.Results.Set(g.Name, e)
		if g.Aggregate {
			out.Groups.Set(g.Name, e)
		}
	}
	for _, g := range groupPreorder(r.Groups) {
		out.GroupSubtasks.Set(g.Name, g.Subtasks)
	}
	sortedMeta(out, r, meta)
	copyMap(&out.Config, config)
	extra := info.extra()
	for _, k := range sortedKeys(extra) {
		out.Extra.Set(k, extra[k])
	}
	if th := thinkingEntry(r); th != nil {
		out.Extra.Set(ThinkingKey, th)
	}
	out.Extra.Set(VersionKey, buildinfo.Version()) // where lm-eval writes lm_eval_version
	return out, fromSamples(r), nil
}

// taskConfig is the task's lm-eval configs entry as lm-eval's evaluator
// leaves it: num_fewshot set to the effective value and, for generate
// tasks, generation_kwargs updated with --gen-kwargs.
func taskConfig(t *goeval.TaskResult) (*py.Map[any], error) {
	v, err := py.ParseJSON(t.Config)
	if err != nil {
		return nil, fmt.Errorf("task %s: config: %w", t.Name, err)
	}
	cfg, ok := v.(*py.Map[any])
	if !ok {
		return nil, fmt.Errorf("task %s: config is not a JSON object", t.Name)
	}
	cfg.Set("num_fewshot", t.NumFewshot)
	if len(t.GenKwargs) > 0 {
		gk, _ := cfg.Get("generation_kwargs")
		m, ok := gk.(*py.Map[any])
		if !ok {
			m = py.NewMap[any]()
		}
		for _, k := range sortedKeys(t.GenKwargs) {
			m.Set(k, t.GenKwargs[k])
		}
		cfg.Set("generation_kwargs", m)
	}
	return cfg, nil
}

// higherIsBetterMap is one task's or group's "higher_is_better" entry.
func higherIsBetterMap(ms []goeval.Metric) *py.Map[any] {
	hib := py.NewMap[any]()
	for _, m := range ms {
		hib.Set(m.Name, m.HigherIsBetter)
	}
	return hib
}

// taskMeta collects per-task maps that lm-eval writes sorted by name.
type taskMeta struct {
	configs, versions, shots, hib map[string]any
}

// sortedMeta writes configs, versions, n-shot and higher_is_better sorted
// by name, groups included (versions as strings, n-shot when the leaves
// agree, higher_is_better merged from the metrics).
func sortedMeta(out *Results, r *goeval.Results, m *taskMeta) {
	for _, g := range r.Groups {
		m.versions[g.Name] = g.Version
	}
	propagateGroupMeta(groupPreorder(r.Groups), m)
	for _, k := range sortedKeys(m.configs) {
		out.Configs.Set(k, m.configs[k])
	}
	for _, k := range sortedKeys(m.versions) {
		out.Versions.Set(k, m.versions[k])
	}
	for _, k := range sortedKeys(m.shots) {
		out.NShot.Set(k, m.shots[k])
	}
	for _, k := range sortedKeys(m.hib) {
		out.HigherIsBetter.Set(k, m.hib[k])
	}
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func taskEntry(t *goeval.TaskResult) *py.Map[any] {
	e := py.NewMap[any]()
	e.Set("name", t.Name)
	e.Set("alias", t.Alias)
	e.Set("sample_len", t.SampleLen)
	for _, m := range t.Metrics {
		e.Set(m.Key(), m.Value)
		e.Set(m.StderrKey(), stderrValue(m))
	}
	return e
}

func groupEntry(g *goeval.GroupResult) *py.Map[any] {
	e := py.NewMap[any]()
	e.Set("alias", g.Alias)
	e.Set("name", g.Name)
	if !g.Aggregate {
		return e
	}
	e.Set("sample_len", g.SampleLen)
	counts := py.NewMap[any]()
	for _, m := range g.Metrics {
		e.Set(m.Key(), m.Value)
		e.Set(m.StderrKey(), stderrValue(m))
		counts.Set(m.Key(), m.N)
	}
	if counts.Len() > 0 {
		e.Set("sample_count", counts)
	}
	return e
}

func stderrValue(m goeval.Metric) any {
	if !m.StderrOK {
		return "N/A"
	}
	return m.Stderr
}

// withModelArgs returns a copy of a task config whose metadata also holds
// the run's model_args and --metadata (lm-eval passes them to every task as
// metadata) and
// then config_source: where lm-eval records the task's YAML file, goeval
// names its built-in task ("goeval:" + task).
func withModelArgs(cfg, runConfig, metadata *py.Map[any], task string) any {
	if cfg == nil {
		return nil
	}
	var args *py.Map[any]
	if runConfig != nil {
		args, _ = runConfig.Value("model_args").(*py.Map[any])
	}
	out := py.NewMap[any]()
	for _, k := range cfg.Keys() {
		v, _ := cfg.Get(k)
		if k == "metadata" {
			meta := py.NewMap[any]()
			if old, ok := v.(*py.Map[any]); ok {
				copyMap(meta, old)
			}
			for _, m := range []*py.Map[any]{args, metadata} {
				if m != nil {
					copyMap(meta, m)
				}
			}
			meta.Set("config_source", ConfigSourcePrefix+task)
			v = meta
		}
		out.Set(k, v)
	}
	return out
}

// VersionKey is the top-level key of goeval's version in a results file.
const VersionKey = "goeval_version"

// BackendKey is the top-level key of the backend spec a run used where it
// is not its device's default (RunInfo.Backend).
const BackendKey = "goeval_backend"

// TimingKey is the results file's key for what the engine ran (forward
// passes, tokens requested and computed, compiles: Timing).
// Like total_evaluation_time_seconds it differs between runs of the same
// evaluation (a resumed run computes less).
const TimingKey = "goeval_timing"

// ConfigSourcePrefix starts the config_source goeval records in each task
// config's metadata.
const ConfigSourcePrefix = "goeval:"

func copyMap(dst, src *py.Map[any]) {
	for _, k := range src.Keys() {
		v, _ := src.Get(k)
		dst.Set(k, v)
	}
}
