// Command goeval loads Hugging Face checkpoints and scores them on the
// benchmarks of EleutherAI's lm-evaluation-harness. Each subcommand lives in
// its own file and registers itself in init.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
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

// usageError marks bad input (flags, files, data): exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// badInput wraps err as bad input (exit status 2).
func badInput(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

// badInputf formats a bad-input error (exit status 2).
func badInputf(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// flagError turns a flag parsing error into bad input; --help is not an error.
func flagError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return badInput(err)
}

// parseFlags parses fs, turning --help into a clean exit and flag errors
// into bad input. Flags may come before or after the positional arguments
// ("goeval plot RUN -o x.svg"); fs.Args() holds the positional ones after a
// "--" everything is positional.
func parseFlags(fs *flag.FlagSet, args []string) (help bool, err error) {
	var pos []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return true, nil
			}
			return false, badInput(err)
		}
		if fs.NArg() == 0 {
			break
		}
		if len(rest) > len(fs.Args()) && rest[len(rest)-len(fs.Args())-1] == "--" {
			pos = append(pos, fs.Args()...) // an explicit "--": the rest is positional
			break
		}
		pos, rest = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
	_ = fs.Parse(append([]string{"--"}, pos...)) // sets fs.Args() to pos; flags keep their values
	return false, nil
}

func main() { os.Exit(runMain(os.Args[1:])) }

func runMain(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage()
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(os.Stderr, "goeval: unknown command %q; run 'goeval help' for the list\n", args[0])
		return 2
	}
	if err := cmd.run(args[1:]); err != nil {
		msg := strings.ReplaceAll(err.Error(), "\n", " ")
		fmt.Fprintf(os.Stderr, "goeval %s: %s\n", cmd.name, msg)
		var ue usageError
		if errors.As(err, &ue) || isBadInput(err) {
			return 2
		}
		return 1
	}
	return 0
}

// isBadInput lets library packages mark bad input without importing cmd:
// any error in the chain with a BadInput() bool method returning true.
func isBadInput(err error) bool {
	var b interface{ BadInput() bool }
	return errors.As(err, &b) && b.BadInput()
}

func printUsage() {
	fmt.Fprintln(os.Stderr, "goeval: evaluate Hugging Face checkpoints on lm-evaluation-harness benchmarks, in Go.")
	fmt.Fprintln(os.Stderr, "\nUsage: goeval <command> [flags]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(os.Stderr, "\nRun 'goeval <command> --help' for a command's flags.")
}
