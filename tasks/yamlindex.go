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
	return s, true, err
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
	g, err := groupFromConfig(e.cfg)
	return g, true, err
}

// groupKeys are GroupConfig's fields.
var groupKeys = map[string]bool{"group": true, "group_alias": true, "task": true, "aggregate_metric_list": true, "metadata": true, "tag": true}

// groupFromConfig reads a group configuration: its member tasks (names of
// tasks, groups or tags) and aggregate_metric_list.
func groupFromConfig(c yamlConfig) (Group, error) {
	r := &cfgReader{c: c}
	for _, k := range c.m.Keys() {
		if !groupKeys[k] {
			r.failf(k, "unknown group key%s", didYouMean(closest(k, sortedKeys(groupKeys))))
		}
	}
	g := Group{Name: r.str("group"), Alias: r.str("group_alias")}
	if l, ok := c.m.Value("task").([]any); ok {
		for i, t := range l {
			name, ok := t.(string)
			if !ok {
				r.failf(fmt.Sprintf("task[%d]", i), "goeval takes task names here; inline task configurations (%s) are not supported: put the task in its own file", yamlKind(t))
				continue
			}
			g.Subtasks = append(g.Subtasks, name)
		}
	} else {
		r.failf("task", "a group needs a list of task names")
	}
	if v, ok := c.get("aggregate_metric_list"); ok && v != nil {
		r.aggregateList(&g, v)
	}
	if md, ok := c.m.Value("metadata").(*py.Map[any]); ok {
		if v, ok := md.Get("version"); ok {
			g.Version = py.Str(v)
		}
	}
	return g, r.err
}

// aggregateList reads aggregate_metric_list (mean, weighted by size or not).
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
	g.Aggregate, g.WeightBySize = true, true
	for i, e := range l {
		key := fmt.Sprintf("aggregate_metric_list[%d]", i)
		m, ok := e.(*py.Map[any])
		if !ok {
			r.failf(key, "want a mapping with a metric key, got %s", yamlKind(e))
			return
		}
		for _, k := range m.Keys() {
			switch k {
			case "metric":
				name, _ := m.Value(k).(string)
				g.Metrics = append(g.Metrics, name)
			case "aggregation":
				if m.Value(k) != "mean" {
					r.failf(key+".aggregation", "only mean is supported (as in lm-eval)")
				}
			case "weight_by_size":
				b, _ := m.Value(k).(bool)
				g.WeightBySize = b
			case "filter_list":
				if fl := (&cfgReader{c: yamlConfig{m: m}}).strList(k); len(fl) != 1 || fl[0] != "none" {
					r.failf(key+".filter_list", "goeval aggregates the none filter only")
				}
			default:
				r.failf(key+"."+k, "unknown aggregate_metric_list key")
			}
		}
	}
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
