// Command synthtasks is the Go side of parity/lmeval/dump_tasks.py: it lists
// the built-in tasks ("list") or writes their synthetic data ("synth DIR N"),
// importing only package tasks so the parity check does not depend on the
// rest of the CLI building.
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/goeval/goeval/synth"
	"github.com/goeval/goeval/tasks"
)

func main() {
	if len(os.Args) >= 2 && os.Args[1] == "list" {
		for _, n := range tasks.NewIndex().List() {
			fmt.Println(n)
		}
		return
	}
	if len(os.Args) != 4 || os.Args[1] != "synth" {
		fmt.Fprintln(os.Stderr, "usage: synthtasks list | synthtasks synth DIR N")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[3])
	if err == nil {
		_, err = synth.Data("all", os.Args[2], synth.DataOptions{N: n})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "synthtasks:", err)
		os.Exit(1)
	}
}
