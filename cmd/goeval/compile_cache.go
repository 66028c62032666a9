package main

import (
	"fmt"
	"os"

	"github.com/goeval/goeval/internal/errs"
)

// compileCacheHelp explains --compile-cache (run and every command that
// registers scoreFlags: score, generate, serve, bench score and generate).
const compileCacheHelp = "folder that keeps XLA's compiled graphs between runs (xla-cpu and cuda): a later run of the same shapes on the same plugin and device loads them instead of compiling; off keeps none. Default $GOEVAL_COMPILE_CACHE, else <user cache dir>/goeval/xla"

// checkCompileCache refuses a --compile-cache that names a file (a
// missing folder is made on the first save).
func checkCompileCache(v string) error {
	if v == "" || v == "off" {
		return nil
	}
	if st, err := os.Stat(v); err == nil && !st.IsDir() {
		return errs.BadInputf("--compile-cache %s is a file: name a folder (made when missing) or off", v)
	}
	return nil
}

// warnf prints an engine warning (work goes on) to standard error.
func warnf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "goeval: warning: "+format+"\n", args...)
}
