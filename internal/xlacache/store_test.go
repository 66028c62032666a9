package xlacache

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestKey: every part of a compile names its own entry, and moving bytes
// from one part to the next does not give the same key.
func TestKey(t *testing.T) {
	s := &store{plugin: "/p.so|1|2"}
	base := s.key([]byte("cuda 13|H200|1"), []byte("module"), []byte("mlir"), []byte("opts"))
	for name, k := range map[string][32]byte{
		"ident":   s.key([]byte("cuda 13|H100|1"), []byte("module"), []byte("mlir"), []byte("opts")),
		"code":    s.key([]byte("cuda 13|H200|1"), []byte("module2"), []byte("mlir"), []byte("opts")),
		"format":  s.key([]byte("cuda 13|H200|1"), []byte("module"), []byte("hlo"), []byte("opts")),
		"options": s.key([]byte("cuda 13|H200|1"), []byte("module"), []byte("mlir"), []byte("opts2")),
		"shifted": s.key([]byte("cuda 13|H200|1"), []byte("modul"), []byte("emlir"), []byte("opts")),
		"plugin":  (&store{plugin: "/p.so|1|3"}).key([]byte("cuda 13|H200|1"), []byte("module"), []byte("mlir"), []byte("opts")),
	} {
		if k == base {
			t.Errorf("changing the %s gives the same key", name)
		}
	}
	if s.key([]byte("cuda 13|H200|1"), []byte("module"), []byte("mlir"), []byte("opts")) != base {
		t.Error("the same compile gives another key")
	}
}

// TestSaveLoad: an entry reads back as written; a missing one is a miss
// with no warning; a corrupt or torn one is a miss, removed, with one
// warning however often it is met.
func TestSaveLoad(t *testing.T) {
	var warnings []string
	s := &store{dir: filepath.Join(t.TempDir(), "cache"), plugin: "p", warn: func(m string) { warnings = append(warnings, m) }}
	k1, k2 := s.key(nil, []byte("a"), nil, nil), s.key(nil, []byte("b"), nil, nil)
	if _, ok := s.load(k1[:]); ok || len(warnings) != 0 {
		t.Fatalf("missing entry: ok=%v, warnings %q", ok, warnings)
	}
	exe := bytes.Repeat([]byte("executable"), 1000)
	s.save(k1[:], exe)
	s.save(k2[:], []byte("another"))
	if got, ok := s.load(k1[:]); !ok || !bytes.Equal(got, exe) {
		t.Fatalf("saved entry: ok=%v, %d bytes; want %d", ok, len(got), len(exe))
	}
	if s.stores.Load() != 2 {
		t.Errorf("stores = %d, want 2", s.stores.Load())
	}
	b, _ := os.ReadFile(s.path(k1[:]))
	b[len(b)-1] ^= 1 // a flipped bit
	os.WriteFile(s.path(k1[:]), b, 0o644)
	os.WriteFile(s.path(k2[:]), []byte(magic+"torn"), 0o644)
	for _, k := range [][32]byte{k1, k2} {
		if _, ok := s.load(k[:]); ok {
			t.Errorf("corrupt entry %x loaded", k[:4])
		}
		if _, err := os.Stat(s.path(k[:])); !os.IsNotExist(err) {
			t.Errorf("corrupt entry %x not removed: %v", k[:4], err)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "corrupt entry") {
		t.Errorf("warnings %q, want one about a corrupt entry", warnings)
	}
}

// TestSaveConcurrent: runs saving the same entry at once leave one whole
// entry and no temporary file.
func TestSaveConcurrent(t *testing.T) {
	s := &store{dir: t.TempDir(), plugin: "p"}
	k := s.key(nil, []byte("a"), nil, nil)
	exe := bytes.Repeat([]byte{7}, 1<<20)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.save(k[:], exe)
		}()
	}
	wg.Wait()
	if got, ok := s.load(k[:]); !ok || !bytes.Equal(got, exe) {
		t.Fatalf("entry after concurrent saves: ok=%v, %d bytes", ok, len(got))
	}
	files, _ := os.ReadDir(s.dir)
	if len(files) != 1 {
		t.Errorf("%d files in the folder, want the one entry", len(files))
	}
}

// TestSaveUnwritable: a folder that cannot be made is one warning, and
// nothing stored.
func TestSaveUnwritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	var warnings []string
	s := &store{dir: filepath.Join(file, "cache"), plugin: "p", warn: func(m string) { warnings = append(warnings, m) }}
	k := s.key(nil, nil, nil, nil)
	s.save(k[:], []byte("x"))
	s.save(k[:], []byte("x"))
	if len(warnings) != 1 || s.stores.Load() != 0 {
		t.Errorf("warnings %q, stores %d; want one warning and none stored", warnings, s.stores.Load())
	}
}

// TestEvict: past the folder's bound the least recently used entries go;
// a load counts as a use.
func TestEvict(t *testing.T) {
	s := &store{dir: t.TempDir(), plugin: "p", max: 3500}
	var keys [][32]byte
	for i := range 4 {
		k := s.key(nil, []byte{byte(i)}, nil, nil)
		keys = append(keys, k)
		s.save(k[:], bytes.Repeat([]byte{1}, 1000)) // 1,045 bytes with magic and checksum
		old := time.Now().Add(time.Duration(i-10) * time.Minute)
		os.Chtimes(s.path(k[:]), old, old) // saved i minutes apart
		if i == 2 {
			if _, ok := s.load(keys[0][:]); !ok { // the first is used again
				t.Fatal("entry 0 missing")
			}
		}
	}
	for i, want := range []bool{true, false, true, true} {
		if _, err := os.Stat(s.path(keys[i][:])); (err == nil) != want {
			t.Errorf("entry %d kept %v, want %v", i, err == nil, want)
		}
	}
	if n, size := Usage(s.dir); n != 3 || size != 3*int64(len(magic)+32+1000) {
		t.Errorf("Usage = %d entries, %d bytes; want 3, %d", n, size, 3*(len(magic)+32+1000))
	}
	if n, size := Usage(filepath.Join(s.dir, "none")); n != 0 || size != 0 {
		t.Errorf("Usage of a missing folder = %d, %d", n, size)
	}
}
