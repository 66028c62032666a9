package hub

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeval/goeval/hub/hubtest"
	"github.com/goeval/goeval/internal/errs"
)

// testRepo is a small model repository: two git files and one LFS file of
// size n.
func testRepo(n int) map[string][]byte {
	w := make([]byte, n)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range w {
		w[i] = byte(rng.Uint32())
	}
	return map[string][]byte{
		"config.json":       []byte(`{"model_type": "llama"}` + "\n"),
		"tokenizer.json":    []byte(`{"version": "1.0"}` + "\n"),
		"model.safetensors": w,
		"README.md":         []byte("not fetched\n"),
	}
}

func testClient(t *testing.T, s *hubtest.Server) *Client {
	t.Helper()
	c := New(Config{Endpoint: s.URL, CacheDir: t.TempDir()})
	c.Retries = 0
	return c
}

var modelPats = []string{"config.json", "*.safetensors", "tokenizer.json", "tokenizer_config.json"}

// TestFetchLayout fetches a repository and checks the cache huggingface_hub
// would have written: blobs named by ETag, relative links, refs/main,
// .no_exist for an absent named file, only the requested files.
func TestFetchLayout(t *testing.T) {
	s := hubtest.New()
	defer s.Close()
	files := testRepo(3000)
	repo := s.Add("models", "org/tiny", files)
	c := testClient(t, s)
	r, _ := ParseRepo("org/tiny", Model)
	snap, err := c.Fetch(context.Background(), r, modelPats)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Commit != repo.Commit || strings.Join(snap.Files, ",") != "config.json,model.safetensors,tokenizer.json" {
		t.Fatalf("snapshot %s %v", snap.Commit, snap.Files)
	}
	root := c.Cache.RepoDir(r)
	ref, _ := os.ReadFile(filepath.Join(root, "refs", "main"))
	if string(ref) != repo.Commit {
		t.Errorf("refs/main = %q, want %q", ref, repo.Commit)
	}
	for name, etag := range map[string]string{"config.json": hubtest.GitSHA1(files["config.json"]),
		"model.safetensors": hubtest.SHA256(files["model.safetensors"])} {
		link, err := os.Readlink(filepath.Join(root, "snapshots", repo.Commit, name))
		if err != nil || link != "../../blobs/"+etag {
			t.Errorf("%s -> %q (%v), want ../../blobs/%s", name, link, err, etag)
		}
		b, _ := os.ReadFile(filepath.Join(snap.Dir, name))
		if !bytes.Equal(b, files[name]) {
			t.Errorf("%s: content differs", name)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".no_exist", repo.Commit, "tokenizer_config.json")); err != nil {
		t.Errorf("no .no_exist marker for tokenizer_config.json: %v", err)
	}
	if snap.Moved != int64(3000+len(files["config.json"])+len(files["tokenizer.json"])) {
		t.Errorf("moved %d bytes", snap.Moved)
	}
	// A second fetch verifies the cache and transfers nothing.
	gets := s.Gets.Load()
	if snap, err = c.Fetch(context.Background(), r, modelPats); err != nil || snap.Moved != 0 || s.Gets.Load() != gets {
		t.Errorf("refetch: moved %d, %d GETs, %v", snap.Moved, s.Gets.Load()-gets, err)
	}
}

// TestResume kills a transfer mid-file, then fetches again: the second
// request asks for the remaining bytes only, and the file is complete.
func TestResume(t *testing.T) {
	s := hubtest.New()
	defer s.Close()
	const size, cut = 200_000, 70_000
	files := testRepo(size)
	s.Add("models", "org/tiny", files)
	c := testClient(t, s)
	r, _ := ParseRepo("org/tiny", Model)
	if _, err := c.Fetch(context.Background(), r, []string{"config.json"}); err != nil {
		t.Fatal(err)
	}
	s.Served.Store(0)
	s.CutAfter.Store(cut)
	if _, err := c.Fetch(context.Background(), r, []string{"*.safetensors"}); err == nil {
		t.Fatal("cut transfer: no error")
	}
	inc := c.Cache.BlobPath(r, hubtest.SHA256(files["model.safetensors"])) + ".incomplete"
	st, err := os.Stat(inc)
	if err != nil || st.Size() != cut {
		t.Fatalf(".incomplete after the cut: %v, %v (want %d bytes)", st, err, cut)
	}
	snap, err := c.Fetch(context.Background(), r, []string{"*.safetensors"})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Served.Load(); got != size {
		t.Errorf("server sent %d bytes in all, want %d (the cut part, then the rest)", got, size)
	}
	if snap.Moved != size-cut {
		t.Errorf("second fetch moved %d bytes, want %d", snap.Moved, size-cut)
	}
	b, _ := os.ReadFile(filepath.Join(snap.Dir, "model.safetensors"))
	if !bytes.Equal(b, files["model.safetensors"]) {
		t.Error("resumed file differs")
	}
	if _, err := os.Stat(inc); !os.IsNotExist(err) {
		t.Errorf(".incomplete left behind: %v", err)
	}
}

// TestResumeWithinFetch: with retries, one Fetch survives a dropped
// connection by resuming.
func TestResumeWithinFetch(t *testing.T) {
	s := hubtest.New()
	defer s.Close()
	files := testRepo(100_000)
	s.Add("models", "org/tiny", files)
	c := testClient(t, s)
	c.Retries = 2
	r, _ := ParseRepo("org/tiny", Model)
	s.CutAfter.Store(40_000)
	snap, err := c.Fetch(context.Background(), r, []string{"*.safetensors"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Served.Load() != 100_000 || s.Gets.Load() != 2 {
		t.Errorf("served %d bytes in %d GETs, want 100000 in 2", s.Served.Load(), s.Gets.Load())
	}
	b, _ := os.ReadFile(filepath.Join(snap.Dir, "model.safetensors"))
	if !bytes.Equal(b, files["model.safetensors"]) {
		t.Error("file differs")
	}
}

// TestCorruptBlob corrupts cached blobs (a flipped byte in an LFS file, a
// truncated git file): the next fetch detects both and fetches them again.
func TestCorruptBlob(t *testing.T) {
	s := hubtest.New()
	defer s.Close()
	files := testRepo(5000)
	s.Add("models", "org/tiny", files)
	c := testClient(t, s)
	r, _ := ParseRepo("org/tiny", Model)
	snap, err := c.Fetch(context.Background(), r, modelPats)
	if err != nil {
		t.Fatal(err)
	}
	w := c.Cache.BlobPath(r, hubtest.SHA256(files["model.safetensors"]))
	b, _ := os.ReadFile(w)
	b[100] ^= 0xff
	if err := os.WriteFile(w, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(c.Cache.BlobPath(r, hubtest.GitSHA1(files["config.json"])), 3); err != nil {
		t.Fatal(err)
	}
	if snap, err = c.Fetch(context.Background(), r, modelPats); err != nil {
		t.Fatal(err)
	}
	if snap.Moved != int64(5000+len(files["config.json"])) {
		t.Errorf("refetched %d bytes, want the two corrupt files (%d)", snap.Moved, 5000+len(files["config.json"]))
	}
	for _, n := range []string{"model.safetensors", "config.json"} {
		if got, _ := os.ReadFile(filepath.Join(snap.Dir, n)); !bytes.Equal(got, files[n]) {
			t.Errorf("%s still corrupt", n)
		}
	}
}

// TestOffline: HF_HUB_OFFLINE uses the cache only; an uncached repository
// is one bad-input line naming 'goeval download'; an unreachable server
// falls back to the cache.
func TestOffline(t *testing.T) {
	s := hubtest.New()
	files := testRepo(1000)
	repo := s.Add("models", "org/tiny", files)
	c := testClient(t, s)
	r, _ := ParseRepo("org/tiny", Model)
	off := *c
	off.Offline = true
	if _, err := off.Fetch(context.Background(), r, modelPats); !errs.IsBadInput(err) || !strings.Contains(err.Error(), "goeval download org/tiny") {
		t.Errorf("offline, empty cache: %v", err)
	}
	if _, err := c.Fetch(context.Background(), r, modelPats); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, cl := range []*Client{&off, c} {
		var warn bytes.Buffer
		cl.Progress = &warn
		snap, err := cl.Fetch(context.Background(), r, modelPats)
		if err != nil || snap.Commit != repo.Commit || len(snap.Files) != 3 || !snap.Cached {
			t.Errorf("offline=%v: %+v, %v", cl.Offline, snap, err)
		}
		if !cl.Offline && !strings.Contains(warn.String(), "cannot reach") {
			t.Errorf("no warning when the server is down: %q", warn.String())
		}
	}
}

// TestErrors checks the one line each failure gives.
func TestErrors(t *testing.T) {
	s := hubtest.New()
	defer s.Close()
	s.Add("models", "org/tiny", testRepo(10))
	priv := s.Add("models", "org/private", testRepo(10))
	priv.Token = "hf_good"
	gated := s.Add("models", "org/gated", testRepo(10))
	gated.Token, gated.Gated = "hf_good", true
	for _, tc := range []struct {
		id, token string
		files     []string
		want      string
		bad       bool
	}{
		{"org/nosuch", "", nil, "401 unauthorized at " + s.URL + ": the repository is private or does not exist; set HF_TOKEN", true},
		{"org/private", "", nil, "private or does not exist; set HF_TOKEN or run `huggingface-cli login`", true},
		{"org/private", "hf_bad", nil, "the token in use (HF_TOKEN or the login token file) has no access", true},
		{"org/gated", "", nil, "model org/gated is gated: accept its conditions at " + s.URL + "/org/gated, then set HF_TOKEN", true},
		{"org/tiny@v9", "", nil, `model org/tiny@v9: revision "v9" not found`, true},
	} {
		c := testClient(t, s)
		c.Token = tc.token
		r, _ := ParseRepo(tc.id, Model)
		_, err := c.Fetch(context.Background(), r, tc.files)
		if err == nil || !strings.Contains(err.Error(), tc.want) || errs.IsBadInput(err) != tc.bad || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s token %q: %v (bad input %v), want %q", tc.id, tc.token, err, errs.IsBadInput(err), tc.want)
		}
	}
	c := testClient(t, s)
	c.Token = "hf_good"
	r, _ := ParseRepo("org/private", Model)
	if _, err := c.Fetch(context.Background(), r, modelPats); err != nil {
		t.Errorf("with the token: %v", err)
	}
	s.Status.Store(429)
	r, _ = ParseRepo("org/tiny", Model)
	_, err := testClient(t, s).Fetch(context.Background(), r, nil)
	if err == nil || !strings.Contains(err.Error(), "rate limited by "+s.URL+" (429); retry after 7 s") {
		t.Errorf("429: %v", err)
	}
}

// TestHeadEntryNotFound: a file the listing named but the server lacks.
func TestHeadEntryNotFound(t *testing.T) {
	s := hubtest.New()
	defer s.Close()
	repo := s.Add("models", "org/tiny", testRepo(10))
	c := testClient(t, s)
	r, _ := ParseRepo("org/tiny", Model)
	_, err := c.head(context.Background(), r, repo.Commit, "nope.json")
	if !errs.IsBadInput(err) || !strings.Contains(err.Error(), "file nope.json not found") {
		t.Errorf("head of a missing file: %v", err)
	}
}

// TestDatasetParquetFallback: a dataset whose main branch has none of the
// wanted files is read from refs/convert/parquet.
func TestDatasetParquetFallback(t *testing.T) {
	s := hubtest.New()
	defer s.Close()
	main := s.Add("datasets", "org/data", map[string][]byte{"data.py": []byte("# a loading script\n")})
	conv := &hubtest.Repo{Commit: strings.Repeat("c", 40), Files: map[string][]byte{"cfg/test/0000.parquet": []byte("PAR1 test")}}
	main.Refs["refs/convert/parquet"] = conv
	c := testClient(t, s)
	r, _ := ParseRepo("org/data", Dataset)
	snap, err := c.FetchDataset(context.Background(), r, []string{"cfg/test-*.parquet", "cfg/test/*.parquet"})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Commit != conv.Commit || len(snap.Files) != 1 || snap.Repo.Rev() != ParquetRevision {
		t.Fatalf("snapshot %+v", snap)
	}
	ref, _ := os.ReadFile(filepath.Join(c.Cache.RepoDir(r), "refs", "refs", "convert", "parquet"))
	if string(ref) != conv.Commit {
		t.Errorf("refs/refs/convert/parquet = %q", ref)
	}
	f, _ := os.Open(filepath.Join(snap.Dir, "cfg", "test", "0000.parquet"))
	b, _ := io.ReadAll(f)
	if string(b) != "PAR1 test" {
		t.Errorf("content %q", b)
	}
}
