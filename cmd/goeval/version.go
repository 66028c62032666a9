package main

import (
	"flag"
	"fmt"

	"github.com/goeval/goeval/internal/buildinfo"
)

func init() {
	register("version", "print goeval's version and the commit it was built from", runVersion)
}

// runVersion prints "goeval VERSION (COMMIT)"; `goeval --version` is the same.
func runVersion(args []string) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	setUsage(fs, "Usage: goeval version\nPrints goeval's module version and the git commit it was built from (also: goeval --version).")
	if help, err := parseNoArgs(fs, args); help || err != nil {
		return err
	}
	fmt.Println(buildinfo.String())
	return nil
}
