// Command mkfixtures writes the fixture models of testdata/fixtures (the
// weights the tests synthesize, see package fixturemodel) into a folder,
// one subfolder per model, for parity/fixtures/make_refs.sh.
//
// Usage: go run ./internal/testutil/mkfixtures --out DIR [name ...]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/goeval/goeval/internal/testutil/fixturemodel"
)

func main() {
	out := flag.String("out", "", "output folder (required)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "mkfixtures: --out is required")
		os.Exit(2)
	}
	root, err := os.Getwd()
	if err == nil {
		_, err = os.Stat(filepath.Join(root, "go.mod"))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkfixtures: run it from the repository root:", err)
		os.Exit(2)
	}
	names := flag.Args()
	if len(names) == 0 {
		names = fixturemodel.Names()
	}
	for _, n := range names {
		if n == fixturemodel.Merged {
			if _, err := os.Stat(filepath.Join(*out, fixturemodel.Base, "model.safetensors")); err != nil {
				if err := fixturemodel.Write(root, fixturemodel.Base, filepath.Join(*out, fixturemodel.Base)); err != nil {
					fmt.Fprintln(os.Stderr, "mkfixtures:", err)
					os.Exit(1)
				}
			}
		}
		if err := fixturemodel.Write(root, n, filepath.Join(*out, n)); err != nil {
			fmt.Fprintln(os.Stderr, "mkfixtures:", err)
			os.Exit(1)
		}
		fmt.Println(filepath.Join(*out, n))
	}
}
