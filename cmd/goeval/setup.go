package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/pjrt"
)

func init() {
	register("setup", "install the XLA CPU plugin (the fast CPU device) ahead of the first run", runSetup)
}

// runSetup implements "goeval setup": the pinned PJRT CPU plugin installed
// into goeval's cache folder and loaded once to prove it works.
func runSetup(args []string) error {
	fs := flag.NewFlagSet("setup", flag.ContinueOnError)
	check := fs.Bool("check", false, "only report whether the plugin is installed and loads; download nothing (exit status 1 when it is not)")
	setUsage(fs, `Usage: goeval setup [--check]

Installs the PJRT CPU plugin that --device auto and --device xla-cpu use (OpenXLA's
xla-cpu-pjrt wheel from PyPI, pinned by version and sha256) into goeval's cache folder
($GOEVAL_PJRT_DIR, else $XDG_CACHE_HOME/goeval/pjrt, else ~/.cache/goeval/pjrt), with a progress
bar, then loads it once. goeval run does the same on first use; setup does it ahead of time,
e.g. in a container build. GOEVAL_OFFLINE=1 forbids the download; GOEVAL_PJRT_URL names a mirror
of the same wheel (the hashes are still checked). It also reports the XLA compile cache: its
folder, entries and size.

Flags:`)
	if help, err := parseNoArgs(fs, args); help || err != nil {
		return err
	}
	if !engine.XLAAvailable() {
		return errors.New("this goeval was built without cgo (CGO_ENABLED=0), so it cannot load the XLA CPU plugin; rebuild with CGO_ENABLED=1 (--device cpu, the pure-Go backend, works as it is)")
	}
	p, ok := pjrt.CPU()
	if !ok {
		return errors.New("goeval pins no PJRT CPU plugin for this platform; --device cpu (pure Go) works everywhere")
	}
	dir, err := pjrt.Dir()
	if err != nil {
		return err
	}
	path, installed := p.Installed(dir)
	switch {
	case *check && !installed:
		return fmt.Errorf("PJRT CPU plugin %s is not installed in %s; run 'goeval setup'", p, dir)
	case !installed:
		if path, err = pjrt.Install(context.Background(), p, pjrt.InstallOptions{Dir: dir, Progress: os.Stderr}); err != nil {
			if errors.Is(err, pjrt.ErrOffline) {
				return fmt.Errorf("PJRT CPU plugin %s is not installed and GOEVAL_OFFLINE forbids downloading it; unset GOEVAL_OFFLINE, or copy %s from a machine that has it", p, p.Path(dir))
			}
			return err
		}
	}
	name, err := engine.ProbeBackend("xla:" + path)
	if err != nil {
		return fmt.Errorf("PJRT CPU plugin %s at %s does not load: %w", p, path, err)
	}
	fmt.Printf("PJRT CPU plugin %s: %s (loads: %s)\n", p, path, name)
	if dir := engine.CompileCacheDir(engine.Options{}); dir != "" {
		n, size := engine.CompileCacheUsage(dir)
		fmt.Printf("XLA compile cache: %s (%d entries, %.1f MB; --compile-cache or GOEVAL_COMPILE_CACHE, off for none)\n", dir, n, float64(size)/1e6)
	} else {
		fmt.Println("XLA compile cache: off")
	}
	return nil
}
