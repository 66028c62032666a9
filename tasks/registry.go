package tasks

import (
	"os"
	"sort"
	"strings"

	"github.com/goeval/goeval/internal/errs"
)

var (
	registry = map[string]*spec{}
	order    []string // registration order
	groups   = map[string]Group{}
	gorder   []string
)

// register adds a built-in task; names are unique.
func register(s *spec) {
	if _, dup := registry[s.name]; dup {
		panic("tasks: duplicate task " + s.name)
	}
	if s.targetDelim == "" && !s.emptyTargetDelim {
		s.targetDelim = " "
	}
	if s.fewDelim == "" {
		s.fewDelim = "\n\n"
	}
	registry[s.name] = s
	order = append(order, s.name)
}

func registerGroup(g Group) {
	if _, dup := groups[g.Name]; dup {
		panic("tasks: duplicate group " + g.Name)
	}
	groups[g.Name] = g
	gorder = append(gorder, g.Name)
}

// List returns every task name, built-in and from indexed YAML files,
// sorted.
func List() []string {
	out := append([]string{}, order...)
	for _, n := range yamlNames(entryTask) {
		if _, dup := registry[n]; !dup {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Groups returns every group: the built-ins in definition order, then
// those of indexed YAML files (sorted) that parse.
func Groups() []Group {
	out := make([]Group, 0, len(gorder))
	for _, n := range gorder {
		if _, over, _ := yamlGroup(n); !over {
			out = append(out, groups[n])
		}
	}
	for _, n := range yamlNames(entryGroup) {
		if g, ok, err := yamlGroup(n); ok && err == nil {
			out = append(out, g)
		}
	}
	return out
}

// GroupsOf returns the groups that list name directly.
func GroupsOf(name string) []string {
	var out []string
	for _, g := range Groups() {
		if contains(g.Subtasks, name) {
			out = append(out, g.Name)
		}
	}
	return out
}

// Get returns a task: one defined by an indexed YAML file (IncludePath,
// LoadTaskFile), else a built-in. An unknown name is a bad-input error
// that suggests the closest name; a YAML task that cannot be built names
// its file and key.
func Get(name string) (Task, error) {
	if s, ok, err := yamlTask(name); ok {
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	if s, ok := registry[name]; ok {
		return s, nil
	}
	return nil, unknown(name)
}

// Dataset returns the Hugging Face dataset a task reads: its repo
// ("openai/gsm8k") and config ("main"; "default" when unnamed). Unknown
// names give Get's error.
func Dataset(task string) (path, config string, err error) {
	t, err := Get(task)
	if err != nil {
		return "", "", err
	}
	s := t.(*spec)
	return s.ds.Path, s.ds.config(), nil
}

// unknown is the bad-input error for a task name that is neither a task nor
// a group, with the closest names when some are close.
func unknown(name string) error {
	if strings.TrimSpace(name) == "" {
		return errs.BadInputf("empty task name ('goeval tasks' lists them)")
	}
	if g, ok := lookupGroup(name); ok {
		return errs.BadInputf("%q is a group of %d tasks, not a task ('goeval tasks' lists its subtasks)", name, len(g.Subtasks))
	}
	all := append(append(List(), gorder...), yamlNames(entryGroup)...)
	return errs.BadInputf("unknown task %q%s ('goeval tasks' lists them)%s", name, didYouMean(closest(name, all)), unreadHint())
}

// Expand resolves task and group names into tasks (groups expanded
// recursively, order kept, duplicates dropped) and the groups met.
func Expand(names []string) ([]Task, []Group, error) {
	var ts []Task
	var gs []Group
	seenT, seenG := map[string]bool{}, map[string]bool{}
	var walk func(n string) error
	walk = func(n string) error {
		if isTaskFile(n) {
			name, err := LoadTaskFile(n)
			if err != nil {
				return err
			}
			n = name
		}
		g, ok, err := yamlGroup(n)
		if err != nil {
			return err
		}
		if !ok {
			g, ok = groups[n]
		}
		if ok {
			if !seenG[n] && !g.tag {
				seenG[n] = true
				gs = append(gs, g)
			}
			for _, sub := range g.Subtasks {
				if err := walk(sub); err != nil {
					return err
				}
			}
			return nil
		}
		t, err := Get(n)
		if err != nil {
			return err
		}
		if !seenT[n] {
			seenT[n] = true
			ts = append(ts, t)
		}
		return nil
	}
	for _, n := range names {
		if strings.TrimSpace(n) == "" {
			return nil, nil, errs.BadInputf("--tasks has an empty name in %q (a stray comma?)", strings.Join(names, ","))
		}
		if err := walk(strings.TrimSpace(n)); err != nil {
			return nil, nil, err
		}
	}
	return ts, gs, nil
}

// lookupGroup finds a group or tag by name (YAML definitions first).
func lookupGroup(name string) (Group, bool) {
	if g, ok, _ := yamlGroup(name); ok {
		return g, true
	}
	g, ok := groups[name]
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
