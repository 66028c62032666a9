// Package testutil is the one fixtures policy of goeval's tests: every
// fixture lives inside the repository (a testdata folder) and a missing one
// fails the test with its path and how to regenerate it. Tests never skip
// for a missing fixture and never read paths outside the repository.
//
// It also holds the shared JSONL reader and the request/reference records of
// the llama.cpp fixtures under testdata/fixtures (see its README.md). The
// fixture models' weights are not stored: package fixturemodel synthesizes
// them at test time.
package testutil

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/goeval/goeval/internal/env"
	"github.com/goeval/goeval/internal/jsonl"
)

// Regenerate is how the committed llama.cpp fixtures are rebuilt.
const Regenerate = "parity/fixtures/make_refs.sh (make parity checks it)"

// FixturesDir is the folder of the llama.cpp fixtures, relative to the
// repository root.
const FixturesDir = "testdata/fixtures"

var (
	rootOnce sync.Once
	root     string
	rootErr  error
)

// Root returns the repository root: the nearest folder above the working
// directory that holds go.mod.
func Root(t testing.TB) string {
	t.Helper()
	rootOnce.Do(func() { root, rootErr = findRoot() })
	if rootErr != nil {
		t.Fatal(rootErr)
	}
	return root
}

func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("testutil: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Path returns the absolute path of rel, a slash-separated path relative to
// the repository root, and fails the test when it does not exist.
func Path(t testing.TB, rel string) string {
	t.Helper()
	if filepath.IsAbs(rel) || strings.HasPrefix(filepath.Clean(rel), "..") {
		t.Fatalf("testutil.Path(%q): fixtures are named relative to the repository root, inside it", rel)
	}
	p := filepath.Join(Root(t), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		how := "it is a committed file: restore it with git checkout"
		if strings.HasPrefix(rel, FixturesDir+"/") {
			how = "regenerate it with " + Regenerate
		}
		t.Fatalf("test fixture %s is missing (%v); %s", p, err, how)
	}
	return p
}

// Fixture returns testdata/fixtures/<name>/<file...> (the folder when no
// file is given), failing the test when it is missing.
func Fixture(t testing.TB, name string, file ...string) string {
	t.Helper()
	return Path(t, strings.Join(append([]string{FixturesDir, name}, file...), "/"))
}

// ReadJSON decodes the JSON file at path into v (a pointer); a missing or
// malformed file fails the test.
func ReadJSON(t testing.TB, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// ReadJSONL decodes every non-blank line of path (gunzipped when the name
// ends in .gz) into a T; a missing or malformed file fails the test.
func ReadJSONL[T any](t testing.TB, path string) []T {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	if strings.HasSuffix(path, ".gz") {
		if data, err = gunzip(data); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	var out []T
	err = jsonl.Decode(bytes.NewReader(data), func(_ int, v T) error {
		out = append(out, v)
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(out) == 0 {
		t.Fatalf("%s holds no records", path)
	}
	return out
}

func gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// Request is one line of requests.jsonl.
type Request struct {
	ID              string  `json:"id"`
	ContextIDs      []int32 `json:"context_ids"`
	ContinuationIDs []int32 `json:"continuation_ids"`
}

// Reference is one line of reference.jsonl (llama.cpp): the continuation's
// log-probability sum, whether every token is the argmax, and per token.
type Reference struct {
	ID            string    `json:"id"`
	NContinuation int       `json:"n_continuation"`
	LogProbSum    float64   `json:"logprob_sum"`
	IsGreedy      bool      `json:"is_greedy"`
	TokenLogProbs []float64 `json:"token_logprobs"`
	TokenIsGreedy []bool    `json:"token_is_greedy"`
	GreedyIDs     []int32   `json:"greedy_ids"`
}

// GenerateRequest is one line of generate.jsonl.
type GenerateRequest struct {
	ID           string  `json:"id"`
	ContextIDs   []int32 `json:"context_ids"`
	MaxNewTokens int     `json:"max_new_tokens"`
}

// Generated is one line of reference_generate.jsonl (llama.cpp, plain
// argmax, no penalties, EOS not special).
type Generated struct {
	ID           string  `json:"id"`
	GeneratedIDs []int32 `json:"generated_ids"`
}

// Requests reads testdata/fixtures/<name>/requests.jsonl.
func Requests(t testing.TB, name string) []Request {
	t.Helper()
	return ReadJSONL[Request](t, Fixture(t, name, "requests.jsonl"))
}

// References reads testdata/fixtures/<name>/reference.jsonl and checks it
// pairs with n requests.
func References(t testing.TB, name string, n int) []Reference {
	t.Helper()
	refs := ReadJSONL[Reference](t, Fixture(t, name, "reference.jsonl"))
	if len(refs) != n {
		t.Fatalf("%s: %d references for %d requests; regenerate with %s", name, len(refs), n, Regenerate)
	}
	return refs
}

// Generates reads generate.jsonl and reference_generate.jsonl of a fixture.
func Generates(t testing.TB, name string) ([]GenerateRequest, []Generated) {
	t.Helper()
	gens := ReadJSONL[GenerateRequest](t, Fixture(t, name, "generate.jsonl"))
	refs := ReadJSONL[Generated](t, Fixture(t, name, "reference_generate.jsonl"))
	if len(gens) != len(refs) {
		t.Fatalf("%s: %d prompts, %d generations; regenerate with %s", name, len(gens), len(refs), Regenerate)
	}
	return gens, refs
}

var (
	tokMu   sync.Mutex
	tokDirs = map[string]string{}
)

// TokenizerDir returns a folder holding tokenizer.json and
// tokenizer_config.json of models/tokenizer/testdata/<name> (stored
// gzipped), written once per test binary.
func TokenizerDir(t testing.TB, name string) string {
	t.Helper()
	src := Path(t, "models/tokenizer/testdata/"+name)
	tokMu.Lock()
	defer tokMu.Unlock()
	if d, ok := tokDirs[name]; ok {
		return d
	}
	dir := filepath.Join(CacheDir(t), "tokenizer-"+name)
	if err := MaterializeTokenizer(src, dir); err != nil {
		t.Fatal(err)
	}
	tokDirs[name] = dir
	return dir
}

// MaterializeTokenizer writes the tokenizer files of src (plain or .gz)
// unzipped into dir.
func MaterializeTokenizer(src, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range []string{"tokenizer.json", "tokenizer_config.json"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if os.IsNotExist(err) {
			if data, err = os.ReadFile(filepath.Join(src, f+".gz")); err == nil {
				data, err = gunzip(data)
			}
		}
		if err != nil {
			return fmt.Errorf("tokenizer %s: %w", src, err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

var (
	cacheOnce sync.Once
	cacheDir  string
	cacheErr  error
)

// CacheDir is a folder for files built once per test binary (synthesized
// models, unzipped tokenizers). Under `go test` it lies in the go command's
// work folder beside the test binary, which go removes after the run;
// otherwise it is a fresh temporary folder.
func CacheDir(t testing.TB) string {
	t.Helper()
	cacheOnce.Do(func() {
		parent := ""
		if exe, err := os.Executable(); err == nil && strings.HasSuffix(exe, ".test") && strings.Contains(exe, "go-build") {
			parent = filepath.Dir(exe)
		}
		cacheDir, cacheErr = os.MkdirTemp(parent, "goeval-testutil-")
		if cacheErr != nil && parent != "" {
			cacheDir, cacheErr = os.MkdirTemp("", "goeval-testutil-")
		}
	})
	if cacheErr != nil {
		t.Fatal(cacheErr)
	}
	return cacheDir
}

// Main runs a package's tests with the pure-Go backend as the default
// device (GOEVAL_DEVICE=cpu unless set, even to ""), so that no test downloads a PJRT
// plugin or depends on one being installed on the machine: call it from
// TestMain in every package whose tests open models.
func Main(m *testing.M) {
	if _, err := env.SetDefault(env.Device, "cpu"); err != nil {
		panic(err) // the table does not document this write
	}
	// Tests never write the user's compile cache; a test of the cache
	// names its own folder (engine.Options.CompileCache).
	if _, err := env.SetDefault(env.CompileCache, "off"); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}
