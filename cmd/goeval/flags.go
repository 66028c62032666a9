package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/goeval/goeval/internal/errs"
)

// flagError turns a flag parsing error into bad input; --help is not an error.
func flagError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return errs.BadInput(err)
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
			return false, errs.BadInput(err)
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

// parseQuiet parses fs without printing flag errors (main reports them as
// one line) and prints --help to stdout; help says --help was asked for.
func parseQuiet(fs *flag.FlagSet, args []string) (help bool, err error) {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fs.SetOutput(os.Stdout)
			fs.Usage()
			return true, nil
		}
		return false, errs.BadInput(err)
	}
	return false, nil
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return fmt.Sprint(*s) }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }
