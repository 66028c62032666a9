package tasks

import (
	"fmt"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/py"
)

// A group's members as lm-eval 0.4.13's TaskFactory builds them from its
// `task:` list (_build_group, _build_group_members):
//
//   - a name: the task, group or tag of that name (a tag's tasks, sorted,
//     become members themselves);
//   - {task: NAME, KEY: value…}: the registered task NAME with the other
//     keys over its configuration (a shallow merge; its name stays NAME),
//     or, when no task is called NAME, a new task GROUP::NAME configured by
//     the mapping alone;
//   - {group: NAME, …}: the registered group NAME with the other keys as
//     overrides of its tasks, or a new group GROUP::NAME read from the
//     mapping (group_alias, task, aggregate_metric_list, metadata).
//
// The keys of a group configuration that are no group keys override every
// task below it, as do the overrides a parent passes down (the parent's
// win); a task built with overrides is a member configured here rather
// than looked up by name.

// inlineMember is a member a group's file configures itself: a task
// configuration (a registered task with overrides, or a new task) or a
// group (an inline group, or a registered group with overrides).
type inlineMember struct {
	task  *inlineTask
	group *Group
}

// inlineTask is a task configuration: base (nil for a new task) with over
// on top, merged when the task is built.
type inlineTask struct {
	base *py.Map[any]
	over *py.Map[any]
	path string // the file relative names are read from
}

// config is the merged configuration ({**base, **over}).
func (t *inlineTask) config() yamlConfig {
	return yamlConfig{m: mergeMaps(t.base, t.over), path: t.path}
}

// maxGroupDepth bounds groups within groups (a group that contains itself
// through overrides would otherwise recurse without end).
const maxGroupDepth = 32

// groupBuilder builds one group configuration's members.
type groupBuilder struct {
	ix    *Index
	path  string // the file the configuration is in
	depth int
}

func (b *groupBuilder) failf(key, format string, args ...any) error {
	return errs.BadInputf("%s: %s: %s", b.path, key, fmt.Sprintf(format, args...))
}

// build reads group name from its configuration m (its task: list,
// aggregate_metric_list, alias, metadata) with overrides from above; key
// names m in error messages ("" for a file's top level).
func (b *groupBuilder) build(name string, m *py.Map[any], overrides *py.Map[any], key string) (Group, error) {
	if b.depth > maxGroupDepth {
		return Group{}, b.failf(key+"task", "groups nested deeper than %d (a group that contains itself?)", maxGroupDepth)
	}
	r := &cfgReader{c: yamlConfig{m: m, path: b.path}}
	g := Group{Name: name, Alias: r.str("group_alias")}
	if r.err != nil {
		return g, r.err
	}
	own := py.NewMap[any]() // the task overrides this configuration adds
	for _, k := range m.Keys() {
		switch {
		case groupKeys[k]:
		case taskKeys[k] || ignoredKeys[k]:
			own.Set(k, m.Value(k))
		default:
			return g, b.failf(key+k, "unknown group key%s", didYouMean(closest(k, append(sortedKeys(groupKeys), sortedKeys(taskKeys)...))))
		}
	}
	merged := mergeMaps(own, overrides)
	if v, ok := m.Get("aggregate_metric_list"); ok && v != nil {
		r.aggregateList(&g, v)
		if r.err != nil {
			return g, r.err
		}
	}
	if md, ok := m.Value("metadata").(*py.Map[any]); ok {
		if v, ok := md.Get("version"); ok {
			g.Version = py.Str(v)
		}
	}
	items, err := b.members(m, key)
	if err != nil {
		return g, err
	}
	for i, it := range items {
		if err := b.member(&g, it, merged, fmt.Sprintf("%stask[%d]", key, i)); err != nil {
			return g, err
		}
	}
	g.Subtasks = dedupe(g.Subtasks)
	return g, nil
}

// dedupe keeps the first of each name.
func dedupe(names []string) []string {
	seen := make(map[string]bool, len(names))
	out := names[:0]
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// members is the task: list (a single name counts as a list of one).
func (b *groupBuilder) members(m *py.Map[any], key string) ([]any, error) {
	switch v := m.Value("task").(type) {
	case []any:
		return v, nil
	case string:
		return []any{v}, nil
	}
	return nil, b.failf(key+"task", "a group needs a list of members (task names, {task: …} or {group: …} mappings)")
}

// add appends a member; a name met twice keeps its first place (dedupe)
// and its last definition, as lm-eval's dict of children.
func (g *Group) add(name string, m *inlineMember) {
	g.Subtasks = append(g.Subtasks, name) // duplicates dropped by dedupe
	if m == nil {
		delete(g.inline, name)
		return
	}
	if g.inline == nil {
		g.inline = map[string]inlineMember{}
	}
	g.inline[name] = *m
}

// mergeMaps is {**a, **b} (either may be nil); nil when both are empty.
func mergeMaps(a, b *py.Map[any]) *py.Map[any] {
	out := py.NewMap[any]()
	for _, m := range []*py.Map[any]{a, b} {
		if m == nil {
			continue
		}
		for _, k := range m.Keys() {
			out.Set(k, m.Value(k))
		}
	}
	if out.Len() == 0 {
		return nil
	}
	return out
}

// entry is the YAML entry of name (nil when no file defines it).
func (ix *Index) entry(name string) *yamlEntry {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.yaml[name]
}

// member adds one item of a task: list.
func (b *groupBuilder) member(g *Group, it any, overrides *py.Map[any], key string) error {
	switch x := it.(type) {
	case string:
		return b.named(g, x, overrides, key)
	case *py.Map[any]:
		if gv, ok := x.Get("group"); ok {
			name, ok := gv.(string)
			if !ok || name == "" {
				return b.failf(key+".group", "want a group name, got %s", yamlKind(gv))
			}
			return b.groupItem(g, name, x, overrides, key)
		}
		tv, ok := x.Get("task")
		if !ok {
			return b.failf(key, "a mapping here needs a task or group key (lm-eval refuses it too)")
		}
		name, ok := tv.(string)
		if !ok || name == "" {
			return b.failf(key+".task", "want a task name, got %s", yamlKind(tv))
		}
		return b.taskItem(g, name, mergeMaps(overrides, x), key)
	}
	return b.failf(key, "want a task name or a {task: …} / {group: …} mapping, got %s", yamlKind(it))
}

// named adds the member a plain name gives: with overrides from above, a
// registered task or group is configured here; a tag's tasks join one by
// one.
func (b *groupBuilder) named(g *Group, name string, overrides *py.Map[any], key string) error {
	e := b.ix.entry(name)
	if e == nil {
		if overrides != nil {
			return b.builtinOverride(name, key)
		}
		g.add(name, nil)
		return nil
	}
	if hasKey(overrides, "task") && e.kind != entryTask {
		return b.renamesAll(name, key)
	}
	switch e.kind {
	case entryTag:
		for _, t := range e.tags {
			if err := b.named(g, t, overrides, key); err != nil {
				return err
			}
		}
		return nil
	case entryGroup:
		if overrides == nil {
			g.add(name, nil)
			return nil
		}
		return b.registeredGroup(g, name, e, overrides)
	}
	if overrides == nil {
		g.add(name, nil)
		return nil
	}
	over := mergeMaps(mapOf("task", name), overrides)
	return b.addTask(g, &inlineTask{base: e.cfg.m, over: over, path: e.cfg.path}, key)
}

// taskItem adds {task: NAME, …}; item holds the overrides from above and
// the mapping's keys, "task" included.
func (b *groupBuilder) taskItem(g *Group, name string, item *py.Map[any], key string) error {
	e := b.ix.entry(name)
	switch {
	case e == nil && item.Len() == 1:
		g.add(name, nil) // a bare reference (a built-in task or group, or unknown)
		return nil
	case e == nil && b.ix.isBuiltin(name):
		return b.builtinOverride(name, key)
	case e == nil: // a new task, GROUP::NAME
		over := mergeMaps(item, mapOf("task", g.Name+"::"+name))
		return b.addTask(g, &inlineTask{over: over, path: b.path}, key)
	case e.kind != entryTask:
		return b.renamesAll(name, key)
	case item.Len() == 1:
		g.add(name, nil)
		return nil
	}
	return b.addTask(g, &inlineTask{base: e.cfg.m, over: item, path: e.cfg.path}, key)
}

// groupItem adds {group: NAME, …}: the registered group with the other
// keys as overrides, else a new group GROUP::NAME read from the mapping.
func (b *groupBuilder) groupItem(g *Group, name string, item, overrides *py.Map[any], key string) error {
	e := b.ix.entry(name)
	if e != nil && e.kind == entryGroup {
		rest := py.NewMap[any]()
		for _, k := range item.Keys() {
			if k != "group" {
				rest.Set(k, item.Value(k))
			}
		}
		merged := mergeMaps(overrides, rest)
		if hasKey(merged, "task") {
			return b.renamesAll(name, key)
		}
		if merged == nil {
			g.add(name, nil)
			return nil
		}
		return b.registeredGroup(g, name, e, merged)
	}
	if e == nil && item.Len() == 1 && overrides == nil && b.ix.isBuiltin(name) {
		g.add(name, nil) // a goeval built-in group, by name
		return nil
	}
	sub := &groupBuilder{ix: b.ix, path: b.path, depth: b.depth + 1}
	ns := g.Name + "::" + name
	sg, err := sub.build(ns, item, overrides, key+".")
	if err != nil {
		return err
	}
	g.add(ns, &inlineMember{group: &sg})
	return nil
}

// registeredGroup adds the group of entry e built with overrides.
func (b *groupBuilder) registeredGroup(g *Group, name string, e *yamlEntry, overrides *py.Map[any]) error {
	sub := &groupBuilder{ix: b.ix, path: e.cfg.path, depth: b.depth + 1}
	sg, err := sub.build(name, e.cfg.m, overrides, "")
	if err != nil {
		return err
	}
	g.add(name, &inlineMember{group: &sg})
	return nil
}

// addTask adds a task configured here, under the name its configuration
// ends with.
func (b *groupBuilder) addTask(g *Group, t *inlineTask, key string) error {
	name, ok := t.over.Value("task").(string)
	if !ok || name == "" {
		return b.failf(key+".task", "want a task name, got %s", yamlKind(t.over.Value("task")))
	}
	g.add(name, &inlineMember{task: t})
	return nil
}

func (b *groupBuilder) builtinOverride(name, key string) error {
	return b.failf(key, "%s is goeval's built-in task or group, which takes no overrides here: give it an lm-eval task file (--include-path)", name)
}

// renamesAll refuses what lm-eval 0.4.13 builds from a {task: NAME, …}
// entry naming a group or tag: its "task" key passes down as an override,
// so every task under NAME is renamed NAME and all but one are lost.
func (b *groupBuilder) renamesAll(name, key string) error {
	return b.failf(key, "%s is a group or tag: lm-eval 0.4.13 renames every task under it to %s here (the entry's task: key passes down as an override), so the group cannot be evaluated as written; list it by name, or as {group: %s, …} with overrides", name, name, name)
}

func mapOf(k string, v any) *py.Map[any] {
	m := py.NewMap[any]()
	m.Set(k, v)
	return m
}

// hasKey reports whether m (nil: empty) holds k.
func hasKey(m *py.Map[any], k string) bool {
	if m == nil {
		return false
	}
	_, ok := m.Get(k)
	return ok
}

// isBuiltin reports whether name is one of goeval's built-in tasks or
// groups.
func (ix *Index) isBuiltin(name string) bool {
	_, t := builtinTasks[name]
	_, g := builtinGroups[name]
	return t || g
}
