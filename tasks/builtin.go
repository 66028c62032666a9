package tasks

// goeval's built-in tasks and groups, each defined once in Go by its
// family's file (gsm8k.go, mmlu.go, …) when the package initialises. The
// tables are never written after that; every Index starts from them.
var (
	builtinTasks  = map[string]*spec{}
	builtinOrder  []string // registration order
	builtinGroups = map[string]Group{}
	builtinGorder []string
)

// register adds a built-in task; names are unique.
func register(s *spec) {
	if _, dup := builtinTasks[s.name]; dup {
		panic("tasks: duplicate task " + s.name)
	}
	if s.targetDelim == "" && !s.emptyTargetDelim {
		s.targetDelim = " "
	}
	if s.fewDelim == "" {
		s.fewDelim = "\n\n"
	}
	builtinTasks[s.name] = s
	builtinOrder = append(builtinOrder, s.name)
}

// registerGroup adds a built-in group; names are unique.
func registerGroup(g Group) {
	if _, dup := builtinGroups[g.Name]; dup {
		panic("tasks: duplicate group " + g.Name)
	}
	builtinGroups[g.Name] = g
	builtinGorder = append(builtinGorder, g.Name)
}

// builtin is the built-in task name (shared: its callers only read it).
func builtin(name string) *spec { return builtinTasks[name] }

// ownBuiltin is a copy of the built-in task name for one caller: building
// a task records the dataset's column order on it, so two evaluations never
// share one.
func ownBuiltin(name string) (*spec, bool) {
	s, ok := builtinTasks[name]
	if !ok {
		return nil, false
	}
	c := *s
	return &c, true
}
