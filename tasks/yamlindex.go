package tasks

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/py"
)

// Task YAML files found through --include-path or named in --tasks, indexed
// as lm-eval's TaskIndex does: every *.yaml under a folder (sorted by path)
// whose merged configuration has a `task` name is a task, one with a
// `group` name is a group, and each `tag` of a task collects it under that
// name. A later definition of a name replaces an earlier one and a
// built-in task. Files are only parsed to index them; a task is built (and
// its unsupported keys reported) when it is asked for.

type entryKind int

const (
	entryTask entryKind = iota
	entryGroup
	entryTag
)

type yamlEntry struct {
	kind entryKind
	cfg  yamlConfig
	tags []string // entryTag: its tasks, sorted
}

// IncludePath indexes every task, group and tag defined by the YAML files
// under dir (lm-eval's --include_path) into ix. It returns the names it defined,
// sorted, and notes for names that replace a built-in or an earlier file.
// Files that are not task or group configurations (bases for include:,
// other YAML) are skipped, as lm-eval skips them.
func (ix *Index) IncludePath(dir string) (names, notes []string, err error) {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, nil, errs.BadInputf("--include-path %s: not a folder (give the folder holding your task YAML files)", dir)
	}
	var files []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "__pycache__" || d.Name() == ".ipynb_checkpoints") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, nil, errs.BadInputf("--include-path %s: %v", dir, err)
	}
	sort.Strings(files)
	ix.mu.Lock()
	defer ix.mu.Unlock()
	seen := map[string]bool{}
	for _, f := range files {
		c, err := loadYAMLFile(f)
		if err != nil { // not a configuration lm-eval could index either
			ix.unread = append(ix.unread, err.Error())
			continue
		}
		name, note := ix.indexConfig(c)
		if name != "" && !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	if len(names) == 0 {
		return nil, nil, errs.BadInputf("--include-path %s: no task YAML files (*.yaml with a task: or group: key) in it", dir)
	}
	sort.Strings(names)
	return names, notes, nil
}

// LoadTaskFile indexes the task or group of one YAML file (--tasks
// path/to/task.yaml) into ix and returns its name.
func (ix *Index) LoadTaskFile(path string) (string, error) {
	c, err := loadYAMLFile(path)
	if err != nil {
		return "", err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	name, _ := ix.indexConfig(c)
	if name == "" {
		return "", errs.BadInputf("%s: neither a task (task: NAME) nor a group (group: NAME) configuration", path)
	}
	return name, nil
}

// indexConfig records one configuration; the caller holds ix.mu.
func (ix *Index) indexConfig(c yamlConfig) (name, note string) {
	g, _ := c.get("group")
	t, _ := c.get("task")
	if _, isClass := c.get("class"); isClass && t != nil {
		// lm-eval's TaskIndex: a class: file is a (Python) task even with
		// a group: key, which building the task drops (scrolls).
		c = yamlConfig{m: mergeMaps(c.m, nil), path: c.path}
		c.m.Delete("group")
		g = nil
	}
	switch {
	case g != nil:
		name, _ = g.(string)
		if name == "" {
			return "", ""
		}
		note = ix.replaced(name, c.path)
		ix.yaml[name] = &yamlEntry{kind: entryGroup, cfg: c}
	case t != nil:
		name, _ = t.(string)
		if name == "" {
			return "", ""
		}
		note = ix.replaced(name, c.path)
		ix.yaml[name] = &yamlEntry{kind: entryTask, cfg: c}
		r := &cfgReader{c: c}
		for _, tag := range r.strList("tag") {
			e := ix.yaml[tag]
			if e == nil || e.kind != entryTag {
				e = &yamlEntry{kind: entryTag}
				ix.yaml[tag] = e
			}
			if !contains(e.tags, name) {
				e.tags = append(e.tags, name)
				sort.Strings(e.tags) // lm-eval keeps a tag's tasks in a set and expands it sorted
			}
		}
	}
	return name, note
}

func (ix *Index) replaced(name, path string) string {
	if e, ok := ix.yaml[name]; ok && e.cfg.path != path && e.kind != entryTag {
		return fmt.Sprintf("%s: %s replaces the definition in %s", path, name, e.cfg.path)
	}
	if _, ok := builtinTasks[name]; ok {
		return fmt.Sprintf("%s: %s replaces goeval's built-in task of that name", path, name)
	}
	return ""
}

// yamlTask builds the YAML task name anew (each caller gets its own),
// ok=false when no YAML file defines a task of that name.
func (ix *Index) yamlTask(name string) (*spec, bool, error) {
	ix.mu.Lock()
	e, ok := ix.yaml[name]
	ix.mu.Unlock()
	if !ok || e.kind != entryTask {
		return nil, false, nil
	}
	py, refused := ix.pythonFor(e.cfg)
	s, err := newYAMLSpec(e.cfg, ix.hook, py)
	if err != nil && refused { // it needs Python, which an unconfirmed code task does not start
		return nil, true, errs.BadInputf("%s", UnsafeRefusal(name))
	}
	return ix.withMetadata(s), true, err
}

// yamlGroup returns a group or tag defined by YAML files.
func (ix *Index) yamlGroup(name string) (Group, bool, error) {
	ix.mu.Lock()
	e, ok := ix.yaml[name]
	ix.mu.Unlock()
	if !ok || e.kind == entryTask {
		return Group{}, false, nil
	}
	if e.kind == entryTag {
		return Group{Name: name, Subtasks: append([]string{}, e.tags...), tag: true}, true, nil
	}
	g, err := ix.groupFromConfig(e.cfg)
	return g, true, err
}

// groupKeys are GroupConfig's fields.
var groupKeys = map[string]bool{"group": true, "group_alias": true, "task": true, "aggregate_metric_list": true, "metadata": true, "tag": true}

// groupFromConfig builds the group a file defines (groupinline.go).
func (ix *Index) groupFromConfig(c yamlConfig) (Group, error) {
	name, _ := c.m.Value("group").(string)
	b := &groupBuilder{ix: ix, path: c.path}
	return b.build(name, c.m, nil, "")
}

// aggregateList reads aggregate_metric_list as lm-eval's AggMetricConfig:
// one entry or a list; per entry the metric, filter_list (a name or a
// list; absent or null: every filter the leaves report), aggregation
// (mean only) and weight_by_size (default true).
func (r *cfgReader) aggregateList(g *Group, v any) {
	l, ok := v.([]any)
	if !ok {
		if m, isMap := v.(*py.Map[any]); isMap {
			l = []any{m}
		} else {
			r.failf("aggregate_metric_list", "want a list of {metric: …} entries, got %s", yamlKind(v))
			return
		}
	}
	g.AggMetrics = []AggMetric{}
	for i, e := range l {
		key := fmt.Sprintf("aggregate_metric_list[%d]", i)
		m, ok := e.(*py.Map[any])
		if !ok {
			r.failf(key, "want a mapping with a metric key, got %s", yamlKind(e))
			return
		}
		a, ok := r.aggMetric(key, m)
		if !ok {
			return
		}
		g.AggMetrics = append(g.AggMetrics, a)
	}
	g.Aggregate = len(g.AggMetrics) > 0
	if g.Aggregate {
		g.WeightBySize = g.AggMetrics[0].WeightBySize
		for _, a := range g.AggMetrics {
			g.Metrics = append(g.Metrics, a.Metric)
		}
	}
}

// aggMetric reads one aggregate_metric_list entry under key.
func (r *cfgReader) aggMetric(key string, m *py.Map[any]) (AggMetric, bool) {
	a := AggMetric{WeightBySize: true}
	for _, k := range m.Keys() {
		v := m.Value(k)
		switch k {
		case "metric":
			a.Metric, _ = v.(string)
			if h, ok := v.(hookRef); ok {
				// lm-eval looks for "<function …>,FILTER" keys, which no
				// task reports: the group aggregates nothing for it.
				a.Metric = "!function " + h.Name
			}
		case "aggregation":
			// lm-eval takes the mean whatever function is named here.
			if _, hook := v.(hookRef); !hook && v != "mean" {
				r.failf(key+".aggregation", "only mean is supported (as in lm-eval), got %s", yamlKind(v))
				return a, false
			}
		case "weight_by_size":
			b, ok := pyTruth(v)
			if !ok {
				r.failf(key+".weight_by_size", "want true or false, got %s", yamlKind(v))
				return a, false
			}
			a.WeightBySize = b
		case "filter_list":
			switch x := v.(type) {
			case nil:
			case string:
				a.Filters = []string{x}
			case []any:
				a.Filters = []string{}
				for _, f := range x {
					name, ok := f.(string)
					if !ok {
						r.failf(key+".filter_list", "want filter names, got %s", yamlKind(f))
						return a, false
					}
					a.Filters = append(a.Filters, name)
				}
			default:
				r.failf(key+".filter_list", "want a filter name or a list of them, got %s", yamlKind(v))
				return a, false
			}
		default:
			r.failf(key+"."+k, "unknown aggregate_metric_list key (metric, filter_list, aggregation, weight_by_size)")
			return a, false
		}
	}
	if a.Metric == "" {
		r.failf(key+".metric", "each entry needs a metric name")
		return a, false
	}
	return a, true
}

// yamlNames lists the YAML tasks (kind entryTask) or groups (entryGroup).
func (ix *Index) yamlNames(kind entryKind) []string {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	var out []string
	for n, e := range ix.yaml {
		if e.kind == kind {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// unreadHint is a note for unknown names when include-path files could not
// be read ("" when all were).
func (ix *Index) unreadHint() string {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	switch len(ix.unread) {
	case 0:
		return ""
	case 1:
		return "; a task file could not be read: " + ix.unread[0]
	}
	return fmt.Sprintf("; %d task files could not be read, the first: %s", len(ix.unread), ix.unread[0])
}
