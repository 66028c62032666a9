package tasks

import (
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

// List returns every built-in task name, sorted.
func List() []string {
	out := append([]string{}, order...)
	sort.Strings(out)
	return out
}

// Groups returns every group, in definition order.
func Groups() []Group {
	out := make([]Group, 0, len(gorder))
	for _, n := range gorder {
		out = append(out, groups[n])
	}
	return out
}

// GroupsOf returns the groups that list name directly.
func GroupsOf(name string) []string {
	var out []string
	for _, g := range gorder {
		if contains(groups[g].Subtasks, name) {
			out = append(out, g)
		}
	}
	return out
}

// Get returns a built-in task; an unknown name is a bad-input error that
// suggests the closest name.
func Get(name string) (Task, error) {
	if s, ok := registry[name]; ok {
		return s, nil
	}
	return nil, unknown(name)
}

// Dataset returns the Hugging Face dataset a built-in task reads: its repo
// ("openai/gsm8k") and config ("main"; "default" when unnamed). Unknown
// names give Get's error.
func Dataset(task string) (path, config string, err error) {
	s, ok := registry[task]
	if !ok {
		return "", "", unknown(task)
	}
	return s.ds.Path, s.ds.config(), nil
}

// unknown is the bad-input error for a task name that is neither a task nor
// a group, with the closest names when some are close.
func unknown(name string) error {
	if strings.TrimSpace(name) == "" {
		return errs.BadInputf("empty task name ('goeval tasks' lists them)")
	}
	if g, ok := groups[name]; ok {
		return errs.BadInputf("%q is a group of %d tasks, not a task ('goeval tasks' lists its subtasks)", name, len(g.Subtasks))
	}
	all := append(append([]string{}, order...), gorder...)
	return errs.BadInputf("unknown task %q%s ('goeval tasks' lists them)", name, didYouMean(closest(name, all)))
}

// Expand resolves task and group names into tasks (groups expanded
// recursively, order kept, duplicates dropped) and the groups met.
func Expand(names []string) ([]Task, []Group, error) {
	var ts []Task
	var gs []Group
	seenT, seenG := map[string]bool{}, map[string]bool{}
	var walk func(n string) error
	walk = func(n string) error {
		if g, ok := groups[n]; ok {
			if !seenG[n] {
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
