// Command goeval loads Hugging Face checkpoints and scores them on the
// benchmarks of EleutherAI's lm-evaluation-harness. Each subcommand lives in
// its own file and registers itself in init; the work is done by the
// libraries, the commands only parse flags and print.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/goeval/goeval/internal/errs"
)

// command is one subcommand. run gets the arguments after the subcommand name.
type command struct {
	name, summary string
	run           func(args []string) error
}

var commands = map[string]*command{}

func register(name, summary string, run func(args []string) error) {
	if _, dup := commands[name]; dup {
		panic("goeval: duplicate subcommand " + name)
	}
	commands[name] = &command{name: name, summary: summary, run: run}
}

func main() { os.Exit(runMain(os.Args[1:])) }

// runMain runs the subcommand named by args[0] and returns the exit status:
// 0, 1 for a failure, 2 for bad input (flags, files, data).
func runMain(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) > 1 {
			return runHelp(args[0], args[1:])
		}
		if len(args) == 0 { // a usage error: the list goes to stderr
			printUsage(os.Stderr)
			return 2
		}
		printUsage(os.Stdout)
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" {
		args[0] = "version"
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(os.Stderr, "goeval: unknown command %q; run 'goeval help' for the list\n", args[0])
		return 2
	}
	stopProfiles, err := startDevProfiles()
	if err != nil {
		fmt.Fprintf(os.Stderr, "goeval %s: %v\n", cmd.name, err)
		return 2
	}
	err = cmd.run(args[1:])
	stopProfiles()
	if err != nil {
		if st := signalStatus(); st != 0 { // SIGINT/SIGTERM: 130/143, as shells report
			fmt.Fprintf(os.Stderr, "goeval %s: stopped by %v\n", cmd.name, caught.Load())
			return st
		}
		msg := strings.ReplaceAll(err.Error(), "\n", " ")
		fmt.Fprintf(os.Stderr, "goeval %s: %s\n", cmd.name, msg)
		if errs.IsBadInput(err) {
			return 2
		}
		return 1
	}
	return 0
}

// runHelp is "goeval help CMD" (or --help CMD): CMD's --help. Anything
// else after help is bad input.
func runHelp(help string, args []string) int {
	cmd, ok := commands[args[0]]
	switch {
	case len(args) > 1:
		fmt.Fprintf(os.Stderr, "goeval: %s takes at most one command name, got %q; try 'goeval help CMD'\n", help, strings.Join(args, " "))
		return 2
	case !ok:
		fmt.Fprintf(os.Stderr, "goeval %s: unknown command %q; run 'goeval help' for the list\n", help, args[0])
		return 2
	}
	return runMain([]string{cmd.name, "--help"})
}

// printUsage writes the command list to w.
func printUsage(w io.Writer) {
	fmt.Fprintln(w, "goeval: evaluate Hugging Face checkpoints on lm-evaluation-harness benchmarks, in Go.")
	fmt.Fprintln(w, "\nUsage: goeval <command> [flags]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'goeval <command> --help' for a command's flags.")
}
