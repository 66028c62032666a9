package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/goeval/goeval/tasks"
)

func init() {
	register("tasks", "list the built-in tasks with their groups, output type and default few-shot", runTasks)
}

// runTasks prints one line per task and then the groups.
func runTasks(args []string) error {
	fs := flag.NewFlagSet("tasks", flag.ContinueOnError)
	setUsage(fs, "Usage: goeval tasks\nLists every built-in task (name, output type, default num_fewshot, groups) and every group.")
	if help, err := parseNoArgs(fs, args); help || err != nil {
		return err
	}
	def := tasks.DefaultOptions()
	fmt.Printf("%-48s %-22s %-8s %s\n", "TASK", "OUTPUT", "FEWSHOT", "GROUPS")
	for _, name := range tasks.List() {
		t, err := tasks.Get(name)
		if err != nil {
			return err
		}
		groups := ancestors(name)
		fmt.Printf("%-48s %-22s %-8d %s\n", name, t.OutputType(), t.NumFewshot(def), strings.Join(groups, ","))
	}
	fmt.Printf("\n%-24s %s\n", "GROUP", "SUBTASKS")
	for _, g := range tasks.Groups() {
		fmt.Printf("%-24s %s\n", g.Name, strings.Join(g.Subtasks, ","))
	}
	return nil
}

// ancestors lists the groups that contain name, directly or not.
func ancestors(name string) []string {
	var out []string
	for _, g := range tasks.GroupsOf(name) {
		out = append(out, g)
		out = append(out, ancestors(g)...)
	}
	return out
}
