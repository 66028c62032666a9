// CLI behaviour tests as testscript (txtar) scripts: testdata/script/*.txtar.
//
// Each script runs in its own temporary $WORK folder with the goeval command
// on $PATH (the test binary itself, dispatched by TestMain), builds the tiny
// model, tokenizer and data it needs with `goeval synth ...`, and asserts on
// exit statuses, stdout, stderr and the files written.
//
// Run them all, or one script by its file name without .txtar:
//
//	go test ./cmd/goeval -run TestScripts
//	go test ./cmd/goeval -run TestScripts/score -v
//
// Keep a failing script's $WORK folder for a look: add -testwork.
//
// Update: edit the .txtar file by hand. The few `cmp stdout NAME` golden
// files inside the scripts can be rewritten from the actual output with
//
//	go test ./cmd/goeval -run TestScripts/NAME -update
//
// $QUANT_TESTDATA is models/testdata/quant (GPTQ, AWQ and 8-bit goldens).
//
// Besides testscript's built-in commands the scripts have:
//
//	exitcode N PROG [ARGS...]  run PROG (goeval) and fail unless it exits with status N
//	badinput PROG [ARGS...]    exit status 2 and exactly one non-empty line on stderr
//	                           (no panic, no usage dump); follow it with `stderr 'message'`
//	cpglob PATTERN DST         copy the single file matching PATTERN to DST, e.g.
//	                           cpglob out/m/results_*.json results.json
//	freeport VAR               set $VAR to a TCP port free on 127.0.0.1 (serve.txtar)
//	samerun DIR1 DIR2          the folders' results files are the same bytes but for the
//	                           timing keys, their samples files the same (samerun_test.go)
//	replace FILE OLD NEW       replace every OLD in FILE by NEW (OLD must occur)
package main

import (
	"errors"
	"flag"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var updateScripts = flag.Bool("update", false, "rewrite the cmp golden files inside testdata/script/*.txtar from the actual output")

// TestMain makes the test binary double as the goeval command: testscript
// puts a copy named goeval on $PATH, and running it calls runMain. The other
// CLI tests of this package run that same copy (goevalBin).
func TestMain(m *testing.M) {
	if os.Getenv("HF_HUB_OFFLINE") == "" {
		os.Setenv("HF_HUB_OFFLINE", "1") // no test reaches the real Hub; hub_test.go serves its own
	}
	if _, set := os.LookupEnv("GOEVAL_DEVICE"); !set { // set but empty: device.txtar's auto
		os.Setenv("GOEVAL_DEVICE", "cpu") // no test downloads a PJRT plugin or depends on one
	}
	testscript.Main(m, map[string]func(){
		"goeval": func() { installTestHooks(); os.Exit(runMain(os.Args[1:])) },
	})
}

func TestScripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "script", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts in testdata/script (err %v)", err)
	}
	testscript.Run(t, testscript.Params{
		Files:               files,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *updateScripts,
		Setup: func(env *testscript.Env) error {
			// Never the network: Hub ids resolve from $WORK/.hf only
			// (hub_test.go and scripts/hub_test.sh test the online path).
			env.Setenv("HF_HOME", filepath.Join(env.WorkDir, ".hf"))
			env.Setenv("HF_HUB_OFFLINE", "1")
			env.Setenv("GOEVAL_DEVICE", "cpu")
			env.Setenv("XDG_CACHE_HOME", filepath.Join(env.WorkDir, ".cache"))
			// The committed quantized checkpoints (quant.txtar copies them).
			quant, err := filepath.Abs(filepath.Join("..", "..", "models", "testdata", "quant"))
			env.Setenv("QUANT_TESTDATA", quant)
			return err
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"exitcode": cmdExitcode,
			"badinput": cmdBadinput,
			"cpglob":   cmdCpglob,
			"freeport": cmdFreeport,
			"samerun":  cmdSamerun,
			"replace":  cmdReplace,
		},
	})
}

// cmdFreeport is "freeport VAR".
func cmdFreeport(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: freeport VAR")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ts.Fatalf("freeport: %v", err)
	}
	defer ln.Close()
	ts.Setenv(args[0], strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
}

// runStatus runs a command through testscript (so stdin, stdout and stderr
// work as with exec) and returns its exit status.
func runStatus(ts *testscript.TestScript, args []string) int {
	err := ts.Exec(args[0], args[1:]...)
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.Exited():
		return ee.ExitCode()
	}
	ts.Fatalf("%s: %v", args[0], err)
	return -1
}

// cmdExitcode is "exitcode N PROG [ARGS...]".
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! exitcode")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exitcode N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: bad status %q", args[0])
	}
	if got := runStatus(ts, args[1:]); got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

// cmdBadinput is "badinput PROG [ARGS...]": the command must reject its
// input the way goeval promises: exit status 2 and a one-line message.
func cmdBadinput(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! badinput")
	}
	if len(args) < 1 {
		ts.Fatalf("usage: badinput PROG [ARGS...]")
	}
	got := runStatus(ts, args)
	stderr := ts.ReadFile("stderr")
	if got != 2 {
		ts.Fatalf("exit status %d, want 2 (bad input)", got)
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if len(lines) != 1 || strings.TrimSpace(lines[0]) == "" || !strings.HasSuffix(stderr, "\n") {
		ts.Fatalf("stderr has %d lines, want exactly one message line:\n%s", strings.Count(stderr, "\n"), stderr)
	}
	if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine ") {
		ts.Fatalf("stderr shows a panic: %s", stderr)
	}
}

// cmdCpglob is "cpglob PATTERN DST": exactly one file may match.
func cmdCpglob(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! cpglob")
	}
	if len(args) != 2 {
		ts.Fatalf("usage: cpglob PATTERN DST")
	}
	matches, err := filepath.Glob(ts.MkAbs(args[0]))
	ts.Check(err)
	if len(matches) != 1 {
		ts.Fatalf("%s matches %d files, want 1: %q", args[0], len(matches), matches)
	}
	data, err := os.ReadFile(matches[0])
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), data, 0o644))
}
