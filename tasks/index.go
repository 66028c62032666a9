package tasks

import (
	"cmp"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/internal/pyworker"
)

// Index is the set of tasks an evaluation can name, as lm-eval's
// TaskManager: goeval's built-in tasks and groups, the tasks, groups and
// tags of the YAML files it was given (IncludePath, LoadTaskFile), and the
// Go functions their `!function` names resolve to (the built-in hooks and
// those of RegisterHook). A YAML definition replaces a built-in of the same
// name in this Index only, so evaluations with different include paths
// can share a process. The methods are safe for concurrent use, and Get
// and Expand return tasks no other caller holds.
type Index struct {
	mu   sync.Mutex
	yaml map[string]*yamlEntry
	// unread are the include-path files that could not be read as YAML
	// (lm-eval skips them too); an unknown task name mentions them.
	unread []string
	hooks  map[string]registered // RegisterHook's, over builtinHooks
	// py runs the Python functions no Go hook answers (SetPython); nil:
	// such task files are refused.
	py *pyworker.Runtime
	// unsafeOK: task files with unsafe_code: true may start Python
	// (ConfirmRunUnsafeCode).
	unsafeOK bool
	// meta is the run's metadata (SetMetadata) for custom_dataset.
	meta *py.Map[any]
}

// NewIndex returns an Index of the built-in tasks and hooks.
func NewIndex() *Index {
	return &Index{yaml: map[string]*yamlEntry{}, hooks: map[string]registered{}}
}

// List returns every task name, built-in and from indexed YAML files,
// sorted.
func (ix *Index) List() []string {
	out := append([]string{}, builtinOrder...)
	for _, n := range ix.yamlNames(entryTask) {
		if _, dup := builtinTasks[n]; !dup {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Groups returns every group: the built-ins in definition order, then
// those of indexed YAML files (sorted) that parse.
func (ix *Index) Groups() []Group {
	out := make([]Group, 0, len(builtinGorder))
	for _, n := range builtinGorder {
		if _, over, _ := ix.yamlGroup(n); !over {
			out = append(out, builtinGroups[n])
		}
	}
	for _, n := range ix.yamlNames(entryGroup) {
		if g, ok, err := ix.yamlGroup(n); ok && err == nil {
			out = append(out, g)
		}
	}
	return out
}

// GroupsOf returns the groups that list name directly.
func (ix *Index) GroupsOf(name string) []string {
	var out []string
	for _, g := range ix.Groups() {
		if contains(g.Subtasks, name) {
			out = append(out, g.Name)
		}
	}
	return out
}

// Get returns a task: one defined by an indexed YAML file, else a
// built-in. An unknown name is a bad-input error that suggests the closest
// name; a YAML task that cannot be built names its file and key.
func (ix *Index) Get(name string) (Task, error) {
	s, err := ix.spec(name)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// spec is Get's task.
func (ix *Index) spec(name string) (*spec, error) {
	if s, ok, err := ix.yamlTask(name); ok {
		return s, err
	}
	if s, ok := ownBuiltin(name); ok {
		return s, nil
	}
	return nil, ix.unknown(name)
}

// Dataset returns the Hugging Face dataset a task reads: its repo
// ("openai/gsm8k") and config ("main"; "default" when unnamed). Unknown
// names give Get's error.
func (ix *Index) Dataset(task string) (path, config string, err error) {
	s, err := ix.spec(task)
	if err != nil {
		return "", "", err
	}
	return s.ds.Path, s.ds.config(), nil
}

// unknown is the bad-input error for a task name that is neither a task nor
// a group, with the closest names when some are close.
func (ix *Index) unknown(name string) error {
	if strings.TrimSpace(name) == "" {
		return errs.BadInputf("empty task name ('goeval tasks' lists them)")
	}
	if g, ok := ix.lookupGroup(name); ok {
		return errs.BadInputf("%q is a group of %d tasks, not a task ('goeval tasks' lists its subtasks)", name, len(g.Subtasks))
	}
	all := append(append(ix.List(), builtinGorder...), ix.yamlNames(entryGroup)...)
	return errs.BadInputf("unknown task %q%s ('goeval tasks' lists them)%s", name, didYouMean(closest(name, all)), ix.unreadHint())
}

// Expand resolves task and group names into tasks (groups expanded
// recursively, order kept, duplicates dropped) and the groups met. A name
// that is the path of a YAML file (path/to/task.yaml) is indexed first.
// Like lm-eval's TaskManager.load, it refuses a task that two of the names
// reach from different sources (two groups, or a group and the task
// itself; a tag's tasks are each their own source).
func (ix *Index) Expand(names []string) ([]Task, []Group, error) {
	return ix.expand(names, true)
}

// ExpandUnion is Expand without the overlap check: the union of the
// names' tasks (goeval synth data writes each dataset once).
func (ix *Index) ExpandUnion(names []string) ([]Task, []Group, error) {
	return ix.expand(names, false)
}

func (ix *Index) expand(names []string, strict bool) ([]Task, []Group, error) {
	x := &expander{ix: ix, strict: strict, seenT: map[string]bool{}, seenG: map[string]bool{},
		from: map[string]string{}, lm: newLMRandom()}
	for _, n := range names {
		if strings.TrimSpace(n) == "" {
			return nil, nil, errs.BadInputf("--tasks has an empty name in %q (a stray comma?)", strings.Join(names, ","))
		}
		x.source, x.top = "", true
		if _, err := x.walk(strings.TrimSpace(n), nil); err != nil {
			return nil, nil, err
		}
		if x.dup != nil {
			return nil, nil, x.dup
		}
	}
	return x.ts, x.gs, nil
}

// expander is one Expand: the tasks and groups met, in order, and what
// lm-eval's TaskManager.load tracks while it builds the same tree.
type expander struct {
	ix           *Index
	strict       bool // refuse a task two top-level names reach
	ts           []Task
	gs           []Group
	seenT, seenG map[string]bool
	from         map[string]string // task → the top-level name that brought it (lm-eval's _check_duplicates)
	source       string            // the top-level group being walked ("": a task or tag)
	top          bool              // whether the name walked next is top-level
	dup          error
	lm           *lmRandom // lm-eval's global random (lmrandom.go)
	taskIDs      int       // random_task_id draws so far
}

// add records task t named n (once), reached from the current source.
func (x *expander) add(n string, t Task) {
	src := cmp.Or(x.source, n)
	if prev, ok := x.from[n]; ok && prev != src && x.strict && x.dup == nil {
		x.dup = errs.BadInputf("duplicate task '%s': found in both '%s' and '%s' (lm-eval refuses it too: evaluate groups that overlap in separate runs)", n, prev, src)
	}
	x.from[n] = src
	if !x.seenT[n] {
		x.seenT[n] = true
		x.ts = append(x.ts, t)
		if s, ok := t.(*spec); ok {
			s.lm = lmRandomState{stream: x.lm, taskIDs: x.taskIDs}
		}
	}
}

// walk expands n; in is n's definition when its group's file configures
// it (groupinline.go), else n is looked up by name. It says whether n is
// a task (not a group or tag).
func (x *expander) walk(n string, in *inlineMember) (bool, error) {
	if in != nil && in.task != nil {
		s, err := newYAMLSpec(in.task.config(), x.ix.hook, x.ix.python())
		if err != nil {
			return false, err
		}
		x.add(n, x.ix.withMetadata(s))
		return true, nil
	}
	g, ok, err := Group{}, false, error(nil)
	if in != nil {
		g, ok = *in.group, true
	} else {
		if isTaskFile(n) {
			if n, err = x.ix.LoadTaskFile(n); err != nil {
				return false, err
			}
		}
		if g, ok, err = x.ix.group(n); err != nil {
			return false, err
		}
	}
	if x.top {
		x.top = false
		if ok && !g.tag {
			x.source = n
		}
	}
	if ok {
		return false, x.walkGroup(n, g)
	}
	t, err := x.ix.Get(n)
	if err != nil {
		return false, err
	}
	x.add(n, t)
	return true, nil
}

// walkGroup expands group (or tag) g named n: its members in order.
func (x *expander) walkGroup(n string, g Group) error {
	if !x.seenG[n] && !g.tag {
		x.seenG[n] = true
		x.gs = append(x.gs, g)
	}
	members := 0
	for _, sub := range g.Subtasks {
		var in *inlineMember
		if m, has := g.inline[sub]; has {
			in = &m
		}
		isTask, err := x.walk(sub, in)
		if err != nil {
			return err
		}
		if isTask {
			members++
		}
	}
	if !g.tag { // Group.add reads each task member's task_name twice
		x.taskIDs += 2 * members
	}
	return nil
}

// group finds a group or tag by name (YAML definitions first); an error
// is a YAML group that does not parse.
func (ix *Index) group(name string) (Group, bool, error) {
	g, ok, err := ix.yamlGroup(name)
	if ok || err != nil {
		return g, ok, err
	}
	g, ok = builtinGroups[name]
	return g, ok, nil
}

// lookupGroup is group without its error.
func (ix *Index) lookupGroup(name string) (Group, bool) {
	g, ok, _ := ix.group(name)
	return g, ok
}

// isTaskFile reports whether a --tasks entry names a YAML file.
func isTaskFile(n string) bool {
	if !strings.HasSuffix(n, ".yaml") && !strings.HasSuffix(n, ".yml") {
		return false
	}
	st, err := os.Stat(n)
	return err == nil && !st.IsDir()
}
