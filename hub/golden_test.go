package hub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeval/goeval/hub/hubtest"
)

const goldenListing = "testdata/hf_cache_listing.txt"

// pyFetch is what huggingface_hub runs to fill its cache from the double:
// hf_hub_download of the files goeval fetches, plus one absent file.
const pyFetch = `
import sys
from huggingface_hub import hf_hub_download
from huggingface_hub.errors import EntryNotFoundError
for f in ["config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"]:
    try:
        hf_hub_download("org/tiny", f)
    except EntryNotFoundError as e:
        print("absent:", f, e, file=sys.stderr)
`

// TestCacheMatchesHuggingfaceHub compares the cache goeval writes with a
// listing of the cache huggingface_hub wrote for the same repository
// (testdata/hf_cache_listing.txt: every folder, link target and file
// with its size and sha256, .locks left out). With GOEVAL_HUB_PYTHON set
// to a Python that has huggingface_hub, the listing is regenerated from
// it first (scripts/hub_test.sh does, then checks git diff).
func TestCacheMatchesHuggingfaceHub(t *testing.T) {
	s := hubtest.New()
	defer s.Close()
	s.Add("models", "org/tiny", testRepo(3000))
	if py := os.Getenv("GOEVAL_HUB_PYTHON"); py != "" {
		home := t.TempDir()
		cmd := exec.Command(py, "-c", pyFetch)
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "HF_") && !strings.HasPrefix(kv, "HUGGING") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, "HF_HOME="+home, "HF_ENDPOINT="+s.URL, "HF_HUB_DISABLE_TELEMETRY=1")
		out, err := cmd.CombinedOutput()
		if err != nil || strings.Count(string(out), "absent:") != 1 {
			t.Fatalf("huggingface_hub (want one absent file): %v\n%s", err, out)
		}
		if err := os.WriteFile(goldenListing, []byte(listCache(t, filepath.Join(home, "hub"))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(goldenListing)
	if err != nil {
		t.Fatalf("%v (regenerate: GOEVAL_HUB_PYTHON=.venv/bin/python go test -run TestCacheMatchesHuggingfaceHub ./hub)", err)
	}
	c := testClient(t, s)
	r, _ := ParseRepo("org/tiny", Model)
	if _, err := c.Fetch(context.Background(), r, modelPats); err != nil {
		t.Fatal(err)
	}
	if got := listCache(t, c.Cache.Dir); got != string(want) {
		t.Errorf("goeval's cache differs from huggingface_hub's.\ngoeval:\n%s\nhuggingface_hub:\n%s", got, want)
	}
}

// listCache lists a cache folder: "d PATH", "l PATH -> TARGET" and
// "f PATH SIZE SHA256", sorted by path; .locks is left out.
func listCache(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".locks":
			return filepath.SkipDir
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			fmt.Fprintf(&b, "l %s -> %s\n", rel, target)
			return err
		case d.IsDir():
			fmt.Fprintf(&b, "d %s\n", rel)
		default:
			data, err := os.ReadFile(p)
			sum := sha256.Sum256(data)
			fmt.Fprintf(&b, "f %s %d %s\n", rel, len(data), hex.EncodeToString(sum[:8]))
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
