// Package xlacache keeps the executables XLA compiles on disk, so that a
// later run of the same graphs on the same plugin and device loads them
// instead of compiling again: XLA's compiles were half of goeval's time in
// whole runs on a GPU (docs/PERFORMANCE.md, "On a GPU").
//
// go-xla (v0.1.4) exposes neither PJRT's executable serialization nor a
// hook around compiles, and GoMLX builds its executables from go-xla's
// unexported handles. So instead of patching either, Install loads the
// PJRT plugin itself and registers it with go-xla under its own path, with
// one entry of the plugin's C API, PJRT_Client_Compile, wrapped (shim.c):
// a compile first looks for an entry keyed by the program, its compile
// options, the plugin file, XLA_FLAGS, the host CPU and the device, and
// loads it with
// PJRT_Executable_DeserializeAndLoad; a miss compiles and stores the
// PJRT_Executable_Serialize bytes. GoMLX and go-xla see an ordinary plugin.
//
// Entries are written atomically (a temporary file renamed into place) and
// carry a SHA-256 of their bytes, so concurrent runs and sweeps share one
// folder safely, a torn or corrupt entry is found before XLA reads it, and
// an entry XLA refuses is removed and compiled again, with one warning.
// Past maxBytes the least recently used entries are removed (a load
// refreshes an entry's time).
package xlacache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// magic starts every entry; a new format gets a new magic.
const magic = "goeval-xla-1\n"

// maxBytes bounds a folder's entries: a save that takes it past this
// removes the least recently used ones (a 24-layer 0.5B model's eight
// shapes take 12 MB on the CPU plugin).
const maxBytes = 4 << 30

// store is one cache folder for one plugin file.
type store struct {
	dir    string
	max    int64  // maxBytes (tests set less)
	plugin string // the plugin's path, size and modification time; XLA_FLAGS; the host CPU
	warn   func(string)

	hits, stores atomic.Int64
	warned       sync.Map // what → true: one warning each
}

// key is the entry name of a compile: the plugin file, the client's
// platform version and device kind (ident), the program's format and
// bytes and the serialized compile options, each length-prefixed.
func (s *store) key(ident, code, format, options []byte) [sha256.Size]byte {
	h := sha256.New()
	for _, part := range [][]byte{[]byte(magic), []byte(s.plugin), ident, format, code, options} {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write(part)
	}
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

// path is the file of entry key.
func (s *store) path(key []byte) string {
	return filepath.Join(s.dir, hex.EncodeToString(key)+".xla")
}

// load returns entry key's serialized executable, or false: none, or a
// corrupt one (removed, with a warning).
func (s *store) load(key []byte) ([]byte, bool) {
	b, err := os.ReadFile(s.path(key))
	if err != nil {
		return nil, false
	}
	payload, ok := bytes.CutPrefix(b, []byte(magic))
	if ok && len(payload) >= sha256.Size {
		sum, data := payload[:sha256.Size], payload[sha256.Size:]
		if got := sha256.Sum256(data); bytes.Equal(got[:], sum) {
			now := time.Now() // most recently used
			os.Chtimes(s.path(key), now, now)
			return data, true
		}
	}
	s.report("reading "+s.dir, "corrupt entry "+filepath.Base(s.path(key))+" removed and compiled again (later ones are not reported)")
	s.drop(key)
	return nil, false
}

// save writes entry key atomically: into a temporary file in the folder,
// then renamed over the entry, so a reader sees the whole entry or none.
func (s *store) save(key, data []byte) {
	if err := s.write(key, data); err != nil {
		s.report("writing to "+s.dir, err.Error())
		return
	}
	s.stores.Add(1)
	s.evict()
}

// Usage counts the entries in folder dir and their bytes (0, 0 for a
// missing folder).
func Usage(dir string) (entries int, bytes int64) {
	all := list(dir)
	for _, e := range all {
		bytes += e.size
	}
	return len(all), bytes
}

// entry is one entry file: its path, size and last use (its time).
type entry struct {
	path string
	size int64
	used time.Time
}

// list is folder dir's entries (a file another run removes meanwhile is
// left out).
func list(dir string) []entry {
	files, _ := filepath.Glob(filepath.Join(dir, "*.xla"))
	var all []entry
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			all = append(all, entry{f, st.Size(), st.ModTime()})
		}
	}
	return all
}

// evict removes the least recently used entries while the folder's
// entries take more than s.max bytes (another run may remove the same
// ones at once: a missing file is no error).
func (s *store) evict() {
	limit := s.max
	if limit == 0 {
		limit = maxBytes
	}
	all := list(s.dir)
	var total int64
	for _, e := range all {
		total += e.size
	}
	sort.Slice(all, func(i, j int) bool { return all[i].used.Before(all[j].used) })
	for _, e := range all {
		if total <= limit {
			return
		}
		os.Remove(e.path)
		total -= e.size
	}
}

// write is save's work.
func (s *store) write(key, data []byte) error {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(s.dir, ".tmp-*")
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	_, err = f.Write(append(append([]byte(magic), sum[:]...), data...))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), s.path(key))
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// drop removes entry key (XLA refused it, or it is corrupt).
func (s *store) drop(key []byte) { os.Remove(s.path(key)) }

// report warns once per what: the cache never stops a run, it only stops
// saving time.
func (s *store) report(what, msg string) {
	if _, seen := s.warned.LoadOrStore(what, true); seen || s.warn == nil {
		return
	}
	s.warn(fmt.Sprintf("compile cache: %s: %s", what, msg))
}
