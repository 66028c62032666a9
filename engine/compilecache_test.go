package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/synth"
)

// cacheChildEnv names the compile cache folder of a TestCompileCache child
// process (a process keeps the first plugin it wrapped, so each run of the
// cache is a process of its own, as each goeval run is).
const cacheChildEnv = "XLACACHE_TEST_CHILD"

// cacheRun is what one child process did: its compiles, the compile
// cache's loads and saves, its warnings and its results.
type cacheRun struct {
	Compiles, Hits, Stores int
	Warnings               []string
	Scores                 []lm.LoglikelihoodResult
	Gen                    []string
}

// TestCompileCache (GOEVAL_TEST_DEVICE=xla-cpu or cuda): a cold run
// compiles and saves every shape; a warm run in a new process loads them
// all and compiles none, with bit-identical scores and generations; an
// entry corrupted on disk, and one whose checksum holds but whose bytes
// XLA refuses, are each compiled again with a warning; two runs sharing a
// cold folder at once both finish with the same results.
func TestCompileCache(t *testing.T) {
	if dir := os.Getenv(cacheChildEnv); dir != "" {
		compileCacheChild(t, dir)
		return
	}
	device := os.Getenv("GOEVAL_TEST_DEVICE")
	if device == "" || device == "cpu" {
		t.Skip("the compile cache keeps XLA's executables: GOEVAL_TEST_DEVICE=xla-cpu (make parity) or cuda")
	}
	model := filepath.Join(t.TempDir(), "m")
	if err := synth.Model(synth.ModelOptions{Arch: "llama", Hidden: 32, Layers: 2, Heads: 4, KVHeads: 2, Intermediate: 64,
		Vocab: 256, MaxPositions: 256, BOS: 1, EOS: 2, Seed: 1, Out: model}); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	cold := runCacheChild(t, cache, model)
	if cold.Compiles == 0 || cold.Hits != 0 || cold.Stores != cold.Compiles {
		t.Fatalf("cold run: %d compiles, %d loaded, %d saved; want all saved, none loaded", cold.Compiles, cold.Hits, cold.Stores)
	}
	warm := runCacheChild(t, cache, model)
	if warm.Hits != cold.Compiles || warm.Stores != 0 || len(warm.Warnings) != 0 {
		t.Fatalf("warm run: %d loaded, %d saved, warnings %q; want %d loaded", warm.Hits, warm.Stores, warm.Warnings, cold.Compiles)
	}
	sameResults(t, "warm", cold, warm)
	t.Logf("cold run: %d shapes compiled and saved; warm run: %d loaded, none compiled", cold.Compiles, warm.Hits)

	entries, _ := filepath.Glob(filepath.Join(cache, "*.xla"))
	if len(entries) != cold.Compiles {
		t.Fatalf("%d entries for %d compiles", len(entries), cold.Compiles)
	}
	b, _ := os.ReadFile(entries[0])
	b[len(b)/2] ^= 0x40
	os.WriteFile(entries[0], b, 0o644)
	checkRecompiled(t, "corrupt", runCacheChild(t, cache, model), cold, "corrupt entry")

	// A whole entry (magic, checksum) of bytes that are no executable.
	junk := bytes.Repeat([]byte("not an executable "), 64)
	sum := sha256.Sum256(junk)
	magic := string(b[:bytes.IndexByte(b, '\n')+1])
	os.WriteFile(entries[1], append(append([]byte(magic), sum[:]...), junk...), 0o644)
	checkRecompiled(t, "refused", runCacheChild(t, cache, model), cold, "loading a cached executable")

	shared := t.TempDir()
	var runs [2]cacheRun
	var errs [2]error
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() { defer wg.Done(); runs[i], errs[i] = cacheChild(shared, model) }()
	}
	wg.Wait()
	for i, r := range runs {
		if errs[i] != nil {
			t.Fatalf("concurrent run %d: %v", i, errs[i])
		}
		sameResults(t, "concurrent", cold, r)
		if len(r.Warnings) != 0 {
			t.Errorf("concurrent run %d: warnings %q", i, r.Warnings)
		}
	}
	if after := runCacheChild(t, shared, model); after.Hits != cold.Compiles {
		t.Errorf("after two concurrent cold runs: %d of %d loaded", after.Hits, cold.Compiles)
	}
}

// checkRecompiled: one entry bad, every other loaded, that one compiled
// and saved again with a warning naming what, results unchanged.
func checkRecompiled(t *testing.T, name string, r, cold cacheRun, what string) {
	t.Helper()
	if r.Hits != cold.Compiles-1 || r.Stores != 1 || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], what) {
		t.Errorf("%s entry: %d loaded, %d saved, warnings %q; want %d loaded, 1 saved, one warning about %q",
			name, r.Hits, r.Stores, r.Warnings, cold.Compiles-1, what)
	}
	sameResults(t, name, cold, r)
}

// sameResults: scores and generations bit for bit.
func sameResults(t *testing.T, name string, want, got cacheRun) {
	t.Helper()
	if !reflect.DeepEqual(got.Scores, want.Scores) || !reflect.DeepEqual(got.Gen, want.Gen) {
		t.Errorf("%s run: results differ from the cold run's", name)
	}
}

// runCacheChild runs this test in a new process on cache and model.
func runCacheChild(t *testing.T, cache, model string) cacheRun {
	t.Helper()
	r, err := cacheChild(cache, model)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// cacheChild is runCacheChild's work, safe on any goroutine.
func cacheChild(cache, model string) (cacheRun, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestCompileCache$", "-test.count=1")
	cmd.Env = append(os.Environ(), cacheChildEnv+"="+cache, "XLACACHE_TEST_MODEL="+model)
	out, err := cmd.CombinedOutput()
	i := bytes.LastIndex(out, []byte("RESULT "))
	if err != nil || i < 0 {
		return cacheRun{}, fmt.Errorf("child run: %v\n%s", err, out)
	}
	line, _, _ := bytes.Cut(out[i+len("RESULT "):], []byte("\n"))
	var r cacheRun
	if err := json.Unmarshal(line, &r); err != nil {
		return cacheRun{}, fmt.Errorf("child result %q: %v", line, err)
	}
	return r, nil
}

// compileCacheChild is one run: score and generate with the cache in dir,
// and print what it did.
func compileCacheChild(t *testing.T, dir string) {
	var mu sync.Mutex
	var r cacheRun
	warn := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		r.Warnings = append(r.Warnings, strings.TrimSpace(fmt.Sprintf(format, args...)))
	}
	e, err := Open(os.Getenv("XLACACHE_TEST_MODEL"), Options{Device: os.Getenv("GOEVAL_TEST_DEVICE"), CompileCache: dir, Warnf: warn})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	reqs := mcWorkload(5, 12, 40, 6, 256)
	if r.Scores, err = e.Loglikelihood(ctx, reqs); err != nil {
		t.Fatal(err)
	}
	gens, err := e.GenerateUntil(ctx, []lm.GenerateRequest{{ContextIDs: reqs[0].ContextIDs, MaxTokens: 6}})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gens {
		r.Gen = append(r.Gen, g.Text)
	}
	hits, stores := CompileCacheStats()
	r.Compiles, r.Hits, r.Stores = e.Stats().Compiles, int(hits), int(stores)
	b, _ := json.Marshal(r)
	os.Stdout.Write(append(append([]byte("RESULT "), b...), '\n'))
}
