package report

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/goeval/goeval/internal/errs"
)

// shardFact is one thing every shard of a run must share, named as the
// message names it ("shards of another <what>").
type shardFact struct {
	what string
	of   func(*ShardManifest) string
}

// shardFacts are what the shards of one run share, goeval's version
// first (another goeval explains any other difference).
func shardFacts() []shardFact {
	facts := []shardFact{
		{"goeval version", func(m *ShardManifest) string { return m.GoevalVersion + " " + m.GitHash }},
		{"model", func(m *ShardManifest) string { return m.ModelName + " (identity " + short(m.ModelIdentity) + ")" }},
		{"shard count", func(m *ShardManifest) string { return fmt.Sprint(m.Count) }},
		{"seed", func(m *ShardManifest) string { return m.Seeds }},
		{"task list", func(m *ShardManifest) string { return taskFacts(m, func(ShardTask) string { return "" }) }},
		{"task version", func(m *ShardManifest) string {
			return taskFacts(m, func(t ShardTask) string { return string(t.Version) })
		}},
		{"task config", func(m *ShardManifest) string {
			return taskFacts(m, func(t ShardTask) string { return short(t.ConfigSHA256) })
		}},
	}
	rt := reflect.TypeFor[EvalSettings]()
	for i := range rt.NumField() {
		if rt.Field(i).Tag.Get("shard") == "path" {
			continue
		}
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		facts = append(facts, shardFact{name, func(m *ShardManifest) string {
			b, _ := json.Marshal(reflect.ValueOf(m.Run).Field(i).Interface())
			return string(b)
		}})
	}
	return append(facts, shardFact{"results header (device, dtype, batch size, model facts)", headerFact})
}

// taskFacts is "name=f(task)" for every task of m.
func taskFacts(m *ShardManifest, f func(ShardTask) string) string {
	var parts []string
	for _, t := range m.Tasks {
		parts = append(parts, t.Name+"="+f(t))
	}
	return strings.Join(parts, " ")
}

// headerFact is the manifest's results header without what differs
// between shards of one run (the engine's work).
func headerFact(m *ShardManifest) string {
	info, err := DecodeRunInfo(m.Info)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	info.Timing, info.Settings.NumParameters = nil, 0
	b, _ := EncodeRunInfo(info)
	return string(b)
}

// short is the first 12 characters of a digest.
func short(s string) string { return s[:min(len(s), 12)] }

// CheckShards checks that shards are one run's complete set of shards:
// the same goeval, model, settings, tasks and seeds, and each index from
// 0 to count-1 once. The error names, in one line, a shard that differs
// from most and one of those.
func CheckShards(shards []*ShardRun) error {
	if len(shards) == 0 {
		return errs.BadInputf("no shards to merge")
	}
	for _, f := range shardFacts() {
		vals := make([]string, len(shards))
		count := map[string]int{}
		for i, s := range shards {
			vals[i] = f.of(&s.Manifest)
			count[vals[i]]++
		}
		if len(count) == 1 {
			continue
		}
		most := vals[0]
		for _, v := range vals {
			if count[v] > count[most] {
				most = v
			}
		}
		odd, usual := slices.IndexFunc(vals, func(v string) bool { return v != most }), slices.Index(vals, most)
		return errs.BadInputf("shards of another %s: %s has %s; %s has %s", f.what, shards[odd].Label(), clip(vals[odd], most),
			shards[usual].Label(), clip(most, vals[odd]))
	}
	return checkIndexes(shards)
}

// checkIndexes checks that each shard index appears once.
func checkIndexes(shards []*ShardRun) error {
	count := shards[0].Manifest.Count
	byIndex := make([][]string, count)
	for _, s := range shards {
		if i := s.Manifest.Index; i >= 0 && i < count {
			byIndex[i] = append(byIndex[i], s.Dir)
		}
	}
	var missing []string
	for i, dirs := range byIndex {
		if len(dirs) > 1 {
			return errs.BadInputf("shard %d/%d is there twice: %s (remove one)", i, count, strings.Join(dirs, " and "))
		}
		if len(dirs) == 0 {
			missing = append(missing, fmt.Sprintf("%d/%d", i, count))
		}
	}
	if len(missing) > 0 {
		return errs.BadInputf("shard%s %s missing (found %d of %d): run it (goeval run --shard %s …) or name its folder",
			plural(len(missing)), strings.Join(missing, ", "), count-len(missing), count, missing[0])
	}
	return nil
}

// plural is "s" for n ≠ 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// clip shortens a, when long, to the part around its first difference
// from b.
func clip(a, b string) string {
	const width = 60
	if len(a) <= width {
		return a
	}
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-20)
	hi := min(len(a), lo+width)
	out := a[lo:hi]
	if lo > 0 {
		out = "…" + out
	}
	if hi < len(a) {
		out += "…"
	}
	return out
}

// DefaultMergeOutput is where goeval merge writes by default: the
// --output-path the shards ran with, OUT of OUT/<model>/shard-i-of-N,
// when every shard folder is so placed under the same OUT.
func DefaultMergeOutput(shards []*ShardRun) (string, bool) {
	var out string
	for i, s := range shards {
		dir := filepath.Clean(s.Dir)
		model, base := filepath.Dir(dir), filepath.Base(dir)
		o, modelDir := filepath.Dir(model), filepath.Base(model)
		m := s.Manifest
		if base != ShardDirName(m.Index, m.Count) || modelDir != SanitizeModelName(m.ModelName) || (i > 0 && o != out) {
			return "", false
		}
		out = o
	}
	return out, true
}

// CheckMergedSamples checks that every line each shard wrote is the line
// of the merged run (samples: task → lines, as FromResults returns them),
// byte for byte: the merge scored every document as its shard did.
func CheckMergedSamples(shards []*ShardRun, samples map[string][]Sample) error {
	for task, lines := range samples {
		seen := 0
		for _, line := range lines {
			var owner *ShardRun
			for _, s := range shards {
				if _, ok := s.docs[task][line.DocID]; ok {
					owner = s
				}
			}
			if owner == nil {
				continue // Merge checked every document has a shard
			}
			enc, err := EncodeSampleLine(line)
			if err != nil {
				return err
			}
			if want := owner.Line(task, line.Filter, line.DocID); string(want) != string(enc) {
				return errs.BadInputf("shard %s: %s doc %d (filter %s) scores otherwise when merged than in the shard", owner.Label(), task, line.DocID, line.Filter)
			}
			seen++
		}
		total := 0
		for _, s := range shards {
			total += len(s.raw[task])
		}
		if seen != total {
			return errs.BadInputf("task %s: the shards hold %d samples lines, the merged run %d", task, total, seen)
		}
	}
	return nil
}
