package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/goeval/goeval/internal/errs"
)

// parseFlags parses fs, turning --help into the usage on stdout (help is
// true) and a flag error into one bad-input line that names the closest
// flag; nothing else is printed. Flags may come before or after the
// positional arguments ("goeval plot RUN -o x.svg"); fs.Args() holds the
// positional ones; after a "--" everything is positional.
func parseFlags(fs *flag.FlagSet, args []string) (help bool, err error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(os.Stdout)
				fs.Usage()
				return true, nil
			}
			return false, flagProblem(fs, err)
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

// parseNoArgs is parseFlags for a subcommand that takes no positional
// arguments: one is bad input rather than silently ignored.
func parseNoArgs(fs *flag.FlagSet, args []string) (help bool, err error) {
	if help, err = parseFlags(fs, args); help || err != nil {
		return help, err
	}
	if fs.NArg() > 0 {
		return false, errs.BadInputf("%s takes no positional arguments, got %q (flags start with --; see 'goeval %s --help')", fs.Name(), fs.Arg(0), fs.Name())
	}
	return false, nil
}

// flagProblem rewrites the flag package's error as one line: an unknown
// flag with the closest defined one, or the original message, each saying
// where to look.
func flagProblem(fs *flag.FlagSet, err error) error {
	see := fmt.Sprintf("see 'goeval %s --help'", fs.Name())
	name, unknown := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !unknown {
		return errs.BadInputf("%v; %s", err, see)
	}
	name = strings.TrimLeft(name, "-")
	if best := closestFlag(fs, name); best != "" {
		return errs.BadInputf("unknown flag --%s: did you mean --%s? (%s)", name, best, see)
	}
	return errs.BadInputf("unknown flag --%s (%s)", name, see)
}

// closestFlag is the defined flag nearest to name: one that starts with or
// contains it, else the smallest edit distance up to max(1, a third of the
// name's length) (underscores read as dashes: lm-eval's spelling).
func closestFlag(fs *flag.FlagSet, name string) string {
	want := strings.ReplaceAll(strings.ToLower(name), "_", "-")
	best, bestD := "", max(1, len(want)/3)+1
	fs.VisitAll(func(f *flag.Flag) {
		d := editDistance(want, f.Name)
		if strings.HasPrefix(f.Name, want) || (len(want) >= 3 && strings.Contains(f.Name, want)) {
			d = min(d, 1)
		}
		if d < bestD || (d == bestD && best != "" && f.Name < best) {
			best, bestD = f.Name, d
		}
	})
	return best
}

// editDistance is the optimal-string-alignment distance between a and b
// (bytes): insertions, deletions, substitutions and swaps of neighbours
// ("modle" → "model" is 1).
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return fmt.Sprint(*s) }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// setUsage makes fs's --help print text and then the flags.
func setUsage(fs *flag.FlagSet, text string) {
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), text)
		fs.PrintDefaults()
	}
}

// optBool is a boolean flag that remembers whether it was given
// (lm-eval's Optional[bool]: --fewshot-as-multiturn defaults to the chat
// template setting, but an explicit false is honoured).
type optBool struct{ set, val bool }

func (b *optBool) String() string {
	if b == nil || !b.set {
		return ""
	}
	return fmt.Sprint(b.val)
}

func (b *optBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("use true or false")
	}
	b.set, b.val = true, v
	return nil
}

func (b *optBool) IsBoolFlag() bool { return true }

// or is the value when given, else def.
func (b optBool) or(def bool) bool {
	if b.set {
		return b.val
	}
	return def
}
