package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/goeval/goeval/tasks"
)

func init() {
	register("tasks", "list the tasks (built-in and --include-path YAML) with their groups, output type and default few-shot", runTasks)
}

// pythonFlags are --python and --python-timeout: the interpreter that runs
// the Python functions of task files (tasks.Index.SetPython).
type pythonFlags struct {
	path    string
	timeout time.Duration
}

const pythonHelp = "Python interpreter (a path, or a name on PATH) that runs the Python functions lm-eval task files name with !function (process_docs, doc_to_*, process_results, metrics, aggregations, filters) where goeval has no Go hook; lm-eval need not be installed unless a hook imports it. \"none\" (or empty) refuses such tasks. It starts only for tasks that need it"

// define adds the flags to fs.
func (p *pythonFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&p.path, "python", "python3", pythonHelp)
	fs.DurationVar(&p.timeout, "python-timeout", tasks.DefaultPythonTimeout, "longest one call of a task file's Python function may take (a process_docs over a whole split included) before goeval stops it")
}

// taskIndex is the built-in tasks plus the task YAML folders of
// --include-path (comma-separated), printing a note for each name a file
// redefines, with py's interpreter for the files' Python functions. The
// caller closes it.
func taskIndex(list string, py pythonFlags) (*tasks.Index, error) {
	ix := tasks.NewIndex()
	if py.path != "none" {
		ix.SetPython(py.path, py.timeout)
	}
	for _, dir := range strings.Split(list, ",") {
		if dir = strings.TrimSpace(dir); dir == "" {
			continue
		}
		_, notes, err := ix.IncludePath(dir)
		if err != nil {
			ix.Close()
			return nil, err
		}
		for _, n := range notes {
			fmt.Fprintf(os.Stderr, "note: %s\n", n)
		}
	}
	return ix, nil
}

// runTasks prints one line per task and then the groups.
func runTasks(args []string) error {
	fs := flag.NewFlagSet("tasks", flag.ContinueOnError)
	include := fs.String("include-path", "", "also list the tasks of the lm-eval task YAML files in these folders (comma-separated)")
	unsafe := fs.Bool("confirm-run-unsafe-code", false, "list the tasks that execute the generated code (unsafe_code: true) as run would with this flag: their Python functions are loaded and checked; without it they are listed as refused")
	var py pythonFlags
	py.define(fs)
	setUsage(fs, "Usage: goeval tasks [--include-path DIR] [--python PY] [--confirm-run-unsafe-code]\nLists every task (name, output type, default num_fewshot, groups) and every group: the built-in ones and those of --include-path's YAML files.")
	if help, err := parseNoArgs(fs, args); help || err != nil {
		return err
	}
	ix, err := taskIndex(*include, py)
	if err != nil {
		return err
	}
	defer ix.Close()
	ix.ConfirmRunUnsafeCode(*unsafe)
	def := tasks.DefaultOptions()
	groups := ix.Groups() // once: each call parses every group file
	parents := map[string][]string{}
	for _, g := range groups {
		for _, s := range g.Subtasks {
			parents[s] = append(parents[s], g.Name)
		}
	}
	fmt.Printf("%-48s %-22s %-8s %s\n", "TASK", "OUTPUT", "FEWSHOT", "GROUPS")
	for _, name := range ix.List() {
		t, err := ix.Get(name)
		if err != nil { // a task file goeval cannot run: say why, list the others
			fmt.Printf("%-48s cannot run: %v\n", name, err)
			continue
		}
		if u, ok := t.(interface{ UnsafeCode() bool }); ok && u.UnsafeCode() && !*unsafe { // as run refuses it
			fmt.Printf("%-48s cannot run: %s\n", name, tasks.UnsafeRefusal(name))
			continue
		}
		fmt.Printf("%-48s %-22s %-8d %s\n", name, t.OutputType(), t.NumFewshot(def), strings.Join(ancestors(parents, name, 0), ","))
	}
	fmt.Printf("\n%-24s %s\n", "GROUP", "SUBTASKS")
	for _, g := range groups {
		fmt.Printf("%-24s %s\n", g.Name, strings.Join(g.Subtasks, ","))
	}
	return nil
}

// ancestors lists the groups that contain name, directly or not (parents:
// the groups that list each name), as GroupsOf would, depth first.
func ancestors(parents map[string][]string, name string, depth int) []string {
	var out []string
	if depth > 64 { // a group that contains itself
		return out
	}
	for _, g := range parents[name] {
		out = append(out, g)
		out = append(out, ancestors(parents, g, depth+1)...)
	}
	return out
}
