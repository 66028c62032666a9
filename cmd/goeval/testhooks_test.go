package main

import (
	"fmt"
	"io"
	"os"
	"strconv"

	goevalpkg "github.com/goeval/goeval"
)

// progressChunkEnv, in the command's tests only, sends requests to the
// model in chunks of N and prints a progress line after every chunk
// (instead of at most every 30 seconds), so a test can interrupt a run at
// a known point (resume_test.go).
const progressChunkEnv = "GOEVAL_PROGRESS_CHUNK"

// installTestHooks sets the command's test seams from the environment of
// the goeval process a test started (testscript runs this test binary as
// goeval).
func installTestHooks() {
	n, err := strconv.Atoi(os.Getenv(progressChunkEnv))
	if err != nil || n < 1 {
		return
	}
	evalOptionsHook = func(opts *goevalpkg.Options) {
		opts.ProgressChunk = n
		opts.Progress = func(p goevalpkg.Progress) {
			if !p.Partial { // a line per call: its answers are cached
				printProgress(os.Stderr, p)
			}
		}
	}
}

// printProgress writes one progress line.
func printProgress(w io.Writer, r goevalpkg.Progress) {
	if r.RequestsTotal > 0 {
		fmt.Fprintln(w, progressLine(r))
	}
}
