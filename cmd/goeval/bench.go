package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/goeval/goeval/internal/errs"
)

func init() {
	register("bench", "throughput benchmarks: bench score|tokenize|… (see 'goeval bench --help')", runBench)
}

// benchKind is one `goeval bench <kind>` benchmark.
type benchKind struct {
	summary string
	run     func(args []string) error
}

// benchKinds maps the benchmark name (args[0]) to its runner. Other files
// add theirs with registerBench in init.
var benchKinds = map[string]benchKind{
	"score":    {"scoring throughput (tokens/s) on a model", benchScore},
	"tokenize": {"tokenizer encode throughput (MB/s) on a text corpus", benchTokenize},
}

// registerBench adds a benchmark kind; it panics on duplicates.
func registerBench(name, summary string, run func(args []string) error) {
	if _, dup := benchKinds[name]; dup {
		panic("goeval: duplicate bench kind " + name)
	}
	benchKinds[name] = benchKind{summary, run}
}

func runBench(args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		names := make([]string, 0, len(benchKinds))
		for n := range benchKinds {
			names = append(names, n)
		}
		sort.Strings(names)
		var sb strings.Builder
		sb.WriteString("Usage: goeval bench <kind> [flags]; kinds:\n")
		for _, n := range names {
			fmt.Fprintf(&sb, "  %-10s %s\n", n, benchKinds[n].summary)
		}
		sb.WriteString("Run 'goeval bench <kind> --help' for its flags.\n")
		if len(args) == 0 { // a usage error: one line
			return errs.BadInputf("missing benchmark kind: %s (see 'goeval bench --help')", strings.Join(names, ", "))
		}
		fmt.Print(sb.String()) // help asked for is output
		return nil
	}
	k, ok := benchKinds[args[0]]
	if !ok {
		return errs.BadInputf("unknown benchmark %q; run 'goeval bench --help' for the list", args[0])
	}
	return k.run(args[1:])
}
