// Package archtest holds the tests that keep goeval's architecture in
// shape: which package may import which. It has no non-test code.
package archtest

import (
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/goeval/goeval"

// layers places every package of the module (path relative to the module
// root, "." for the root). A package may import only packages of a strictly
// lower layer: contracts low, formats high. A new package must be added
// here, which is the moment to decide where it belongs.
var layers = map[string]int{
	// -1: the one table of environment variables, the only code that reads
	// or sets them (envcalls_test.go): below the leaves, which read theirs.
	"internal/env": -1,
	// 0: leaves everyone may use.
	"internal/errs": 0, "internal/py": 0, "internal/jinja": 0, "internal/buildinfo": 0,
	"internal/jsonl":    0, // JSON lines read one way: blank lines skipped, lines numbered
	"internal/gemm":     0, // float32 matmul micro-kernels (Go assembly), no GoMLX
	"internal/vmath":    0, // vectorised float32 exp, logistic, SiLU (Go assembly), no GoMLX
	"internal/sandbox":  0, // generated programs run confined (namespaces, seccomp, Landlock, rlimits); no GoMLX
	"internal/procfs":   0, // Linux /proc values (peak RSS, memory available)
	"internal/par":      0, // a loop split over the processors (checkpoint loading's conversions)
	"internal/xlacache": 1, // XLA's compiled executables kept on disk: a PJRT plugin's compile call wrapped (cgo); no GoMLX
	// 1: contracts and self-contained formats.
	"lm": 1, "metrics": 1, "metrics/mathverify": 1, "models/safetensors": 1, "models/nn": 1, "models/tokenizer": 1,
	"hub": 1, "hub/hubtest": 1, // the Hub client and cache (and its test double): know no model, task or evaluator
	"pjrt":              1, // the pinned PJRT plugins: download, verify, install; knows no GoMLX
	"bench/peak":        1, // the machine's measured f32 peak (an FMA loop)
	"lm/lmenc":          1, // lm-eval's request tokenization rules, shared by the engine and remote-model clients
	"internal/gocpu":    1, // goeval's pure-Go GoMLX backend (--device cpu), on internal/gemm
	"internal/testutil": 1, // the tests' fixtures policy and default device (through internal/env)
	"engine/plan":       1, // the scoring passes' plan: dedup, packed rows over a prefix tree, cached prefixes, shapes; no GoMLX
	"internal/pyworker": 1, // the Python worker for task files' Python functions: its process, protocol and value encoding
	"internal/ifeval":   1, // lm-eval ifeval's instruction checks, on internal/py's str semantics (its re and json loads here)
	// 2: tasks, model graphs, test doubles.
	"tasks": 2, "models": 2, "lm/lmtest": 2, "lm/lmcache": 2,
	"lm/lmtok":   2, // the one adapter from a tokenizer.json tokenizer to lm (chat template, tokens)
	"lm/lmsplit": 2, // requests dealt to copies of one model (a replica per device)
	// 3: the engine (implements lm.LM on GoMLX) and the evaluator.
	"engine": 3, ".": 3,
	"apimodel": 3, // lm.LM over an OpenAI-compatible HTTP API
	// 4: formats and generators built on the evaluator and the models.
	"report": 4, "synth": 4,
	"serve": 4, // the OpenAI-compatible server over lm.LM; the command hands it the engine
	"judge": 4, // LLM-as-judge: prompts, judge prompts and verdicts, win rates; answers and judge come as lm.LM
	// 5: benchmarks; test models built with synth; charts of report's comparisons.
	"bench": 5, "internal/testutil/fixturemodel": 5,
	"report/charts": 5, // gonum/plot charts and the HTML report, kept out of report so that it stays light
	// 6: the command line.
	"cmd/goeval": 6,
	// 7: reference tooling.
	"parity/models": 7, "parity/lmeval/synthtasks": 7, "internal/archtest": 7,
	"internal/testutil/mkfixtures": 7,
}

// forbidden are edges the layer table alone would allow but the design
// rules out: the engine knows nothing about tasks or metrics, models know
// nothing about requests, and the command line calls libraries instead of
// reaching into checkpoint files, graph blocks or Python emulation.
var forbidden = map[string][]string{
	"engine":     {"tasks", "metrics", "."},
	"models":     {"lm", "tasks", "metrics"},
	"cmd/goeval": {"models/safetensors", "models/nn", "internal/py", "internal/pyworker"},
	"serve":      {"engine", "models", "tasks"},
	"apimodel":   {"engine", "models", "tasks"},
	"judge":      {"engine", "models"},
}

// light are packages that must not link GoMLX, XLA or the plotting
// library, even indirectly: a Go training loop that calls Evaluate with its
// own LM and writes lm-eval's results files through report links only
// these (report's charts and HTML report are report/charts); engine/plan
// plans the engine's passes as plain data (the engine alone turns them
// into tensors).
var light = []string{".", "lm", "lm/lmtest", "lm/lmcache", "lm/lmsplit", "lm/lmenc", "lm/lmtok", "tasks", "metrics", "pjrt", "serve", "apimodel", "judge",
	"report", "engine/plan"}

var heavy = []string{"github.com/gomlx/", "gonum.org/v1/plot"}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("repository root not found from %s: %v", dir, err)
	}
	return dir
}

// packages returns every Go package directory of the module (relative
// path → non-test imports inside the module, relative).
func packages(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		pkg, err := build.Default.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		var deps []string
		for _, imp := range pkg.Imports {
			if imp == module {
				deps = append(deps, ".")
			} else if r, ok := strings.CutPrefix(imp, module+"/"); ok {
				deps = append(deps, r)
			}
		}
		out[rel] = deps
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLayering fails on any import from a lower layer to a higher or equal
// one, and on packages missing from the layer table.
func TestLayering(t *testing.T) {
	pkgs := packages(t, repoRoot(t))
	names := make([]string, 0, len(pkgs))
	for p := range pkgs {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		lp, ok := layers[p]
		if !ok {
			t.Errorf("package %q is not in the layer table of internal/archtest: add it where it belongs", p)
			continue
		}
		for _, d := range pkgs[p] {
			ld, ok := layers[d]
			if ok && ld >= lp {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must go to a lower layer", p, lp, d, ld)
			}
			for _, f := range forbidden[p] {
				if d == f {
					t.Errorf("%s imports %s: that edge is ruled out (see forbidden in internal/archtest)", p, d)
				}
			}
		}
	}
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages: the walk is broken", len(pkgs))
	}
}

// TestLightPackages checks with `go list -deps` that the evaluator, its
// contracts, lm-eval's file formats and the engine's planning link no
// GoMLX, XLA or plotting package.
func TestLightPackages(t *testing.T) {
	root := repoRoot(t)
	for _, p := range light {
		cmd := exec.Command("go", "list", "-deps", "./"+p)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps ./%s: %v", p, err)
		}
		deps := strings.Fields(string(out))
		for _, d := range deps {
			for _, h := range heavy {
				if strings.HasPrefix(d, h) {
					t.Errorf("package %s depends on %s (via go list -deps): it must stay light (see light in internal/archtest)", p, d)
				}
			}
		}
		t.Logf("%s: %d packages in go list -deps", p, len(deps))
	}
}
