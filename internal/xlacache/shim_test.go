//go:build cgo

package xlacache

import (
	"bytes"
	"crypto/sha256"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"
)

// fakePlugin builds testdata/fakepjrt.c into a shared library with the C
// compiler cgo uses (go env CC).
func fakePlugin(t *testing.T) string {
	t.Helper()
	cc, err := exec.Command("go", "env", "CC").Output()
	if err != nil {
		t.Fatalf("go env CC: %v", err)
	}
	so := filepath.Join(t.TempDir(), "fakepjrt.so")
	args := strings.Fields(string(cc)) // CC may carry flags or a wrapper ("ccache gcc")
	if len(args) == 0 {
		t.Fatal("go env CC is empty")
	}
	args = append(args, "-shared", "-fPIC", "-O1", "-o", so, "testdata/fakepjrt.c")
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("building the fake plugin: %v\n%s", err, out)
	}
	return so
}

// TestShim drives the wrapped compile of a fake PJRT plugin (no XLA): a
// plugin whose API is too short is refused; a miss compiles and saves, a
// hit loads; other options or another device kind compile again; a
// corrupt entry and one the plugin refuses to load are compiled again,
// each with one warning; a plugin that cannot serialize still compiles,
// with one warning and nothing saved; a failed compile passes its error
// through and saves nothing.
func TestShim(t *testing.T) {
	so := fakePlugin(t)
	t.Setenv("FAKE_PJRT_SHORT", "1")
	if err := install(so, t.TempDir(), nil, func(uintptr) error { return nil }); err == nil || !strings.Contains(err.Error(), "too old") {
		t.Fatalf("a short PJRT API: %v, want refused as too old", err)
	}
	os.Unsetenv("FAKE_PJRT_SHORT")
	var warnings []string
	dir := t.TempDir()
	if err := install(so, dir, func(m string) { warnings = append(warnings, m) }, func(uintptr) error { return nil }); err != nil {
		t.Fatal(err)
	}
	compile := func(program, options, want string) {
		t.Helper()
		exe, err := compileThrough(program, options)
		if err != nil {
			t.Fatalf("compile %q: %v", program, err)
		}
		if got := cString(exe); got != want+program {
			t.Errorf("compile %q with %q: executable %q, want %q", program, options, got, want+program)
		}
	}
	warned := func(what string) {
		t.Helper()
		if len(warnings) != 1 || !strings.Contains(warnings[0], what) {
			t.Errorf("warnings %q, want one about %q", warnings, what)
		}
		warnings = nil
	}
	compile("module A", "opts", "CMP:")
	compile("module A", "opts", "LOD:")
	compile("module A", "opts2", "CMP:")
	t.Setenv("FAKE_PJRT_KIND", "OtherGPU")
	compile("module A", "opts", "CMP:")
	os.Unsetenv("FAKE_PJRT_KIND")
	if hits, stores := Stats(); hits != 1 || stores != 3 || len(warnings) != 0 {
		t.Fatalf("%d loaded, %d saved, warnings %q; want 1, 3, none", hits, stores, warnings)
	}

	entries, _ := filepath.Glob(filepath.Join(dir, "*.xla"))
	for _, e := range entries { // every entry corrupt: the first is met
		b, _ := os.ReadFile(e)
		b[len(b)-1] ^= 1
		os.WriteFile(e, b, 0o644)
	}
	compile("module A", "opts", "CMP:")
	warned("corrupt entry")
	compile("module A", "opts", "LOD:")

	for _, e := range entries { // whole entries that are no executable
		junk := []byte("not an executable")
		sum := sha256.Sum256(junk)
		os.WriteFile(e, bytes.Join([][]byte{[]byte(magic), sum[:], junk}, nil), 0o644)
	}
	compile("module A", "opts", "CMP:")
	warned("fake: not a serialized executable")
	compile("module A", "opts", "LOD:")

	t.Setenv("FAKE_PJRT_NO_SERIALIZE", "1")
	compile("module B", "opts", "CMP:")
	compile("module B", "opts", "CMP:")
	warned("fake: serialization unimplemented")
	os.Unsetenv("FAKE_PJRT_NO_SERIALIZE")

	if _, err := compileThrough("FAIL here", "opts"); err == nil || err.Error() != "fake: compile failed" {
		t.Errorf("a failed compile: %v, want the plugin's error", err)
	}
	if after, _ := filepath.Glob(filepath.Join(dir, "*.xla")); len(after) != len(entries) {
		t.Errorf("%d entries, want %d (nothing saved for B or the failed compile)", len(after), len(entries))
	}
}

// cString reads the NUL-terminated text at p (a fake executable).
func cString(p unsafe.Pointer) string {
	var b []byte
	for i := uintptr(0); ; i++ {
		c := *(*byte)(unsafe.Add(p, i))
		if c == 0 {
			return string(b)
		}
		b = append(b, c)
	}
}
