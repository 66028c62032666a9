package safetensors

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"unsafe"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/par"
	"github.com/x448/float16"
)

// Set is one or more memory-mapped safetensors files seen as a single map
// from tensor name to data. The mappings are read-only: slices returned by
// Bytes and (for F32) Float32 alias them and must not be written.
type Set struct {
	source   string // the file or index that was opened, for messages
	files    []string
	maps     map[string][]byte // file path → mmap
	infos    map[string]TensorInfo
	metadata map[string]string
	rename   func(string) (string, bool) // Rename's, or nil
}

// OpenFile maps one safetensors file (model.safetensors, one shard,
// adapter_model.safetensors) and validates its header.
func OpenFile(path string) (*Set, error) {
	s := &Set{source: path, maps: map[string][]byte{}, infos: map[string]TensorInfo{}}
	infos, meta, err := s.mapFile(path)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.infos, s.metadata = infos, meta
	return s, nil
}

// mapFile mmaps path, validates its header and records the mapping in s.
// On error everything s mapped so far stays mapped; callers Close s.
func (s *Set) mapFile(path string) (map[string]TensorInfo, map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, errs.BadInputf("%s: no such file", path)
		}
		return nil, nil, fmt.Errorf("open safetensors: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if st.IsDir() {
		return nil, nil, errs.BadInputf("%s: is a directory, not a safetensors file", path)
	}
	size := st.Size()
	if size < 8 {
		return nil, nil, errs.BadInputf("%s: file is %d bytes, shorter than the 8-byte safetensors header length; the file is truncated or not safetensors", path, size)
	}
	if size > math.MaxInt {
		return nil, nil, errs.BadInputf("%s: file too large to map (%d bytes)", path, size)
	}
	buf, err := mmapReadOnly(f, int(size))
	if err != nil {
		return nil, nil, fmt.Errorf("mmap %s: %w", path, err)
	}
	s.files = append(s.files, path)
	s.maps[path] = buf
	infos, meta, err := parseHeader(path, buf)
	if err != nil {
		return nil, nil, err
	}
	return infos, meta, nil
}

// Close unmaps every file. Slices obtained from the Set become invalid.
func (s *Set) Close() error {
	var first error
	for _, p := range s.files {
		if err := munmap(s.maps[p]); err != nil && first == nil {
			first = fmt.Errorf("munmap %s: %w", p, err)
		}
	}
	s.files, s.maps, s.infos = nil, nil, nil
	return first
}

// Source is the path that was opened: the single file or the index.
func (s *Set) Source() string { return s.source }

// Files lists the mapped files in the order they were opened.
func (s *Set) Files() []string { return append([]string(nil), s.files...) }

// Metadata returns the __metadata__ of the file (or the index's "metadata"
// string values for a sharded set).
func (s *Set) Metadata() map[string]string { return s.metadata }

// Names lists the tensor names, sorted.
func (s *Set) Names() []string {
	names := make([]string, 0, len(s.infos))
	for n := range s.infos {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Info describes tensor name; ok is false if there is no such tensor.
func (s *Set) Info(name string) (TensorInfo, bool) {
	t, ok := s.infos[name]
	return t, ok
}

// Bytes returns the raw little-endian bytes of tensor name. The slice
// aliases the read-only mapping: do not write to it.
func (s *Set) Bytes(name string) ([]byte, error) {
	t, ok := s.infos[name]
	if !ok {
		return nil, errs.BadInputf("%s: no tensor %q", s.source, name)
	}
	return s.maps[t.File][t.Offset : t.Offset+t.Length], nil
}

// Float32 returns tensor name as float32 values. F32 data aliases the
// read-only mapping when it is 4-byte aligned (do not write to it); F16 and
// BF16 are converted into a fresh slice. Other dtypes are an error.
func (s *Set) Float32(name string) ([]float32, error) {
	t, ok := s.infos[name]
	if !ok {
		return nil, errs.BadInputf("%s: no tensor %q", s.source, name)
	}
	b := s.maps[t.File][t.Offset : t.Offset+t.Length]
	n := int(t.Length / dtypeSizes[t.DType])
	switch t.DType {
	case "F32":
		if n == 0 {
			return []float32{}, nil
		}
		if nativeLittleEndian && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
			return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n), nil
		}
		out := make([]float32, n)
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return out, nil
	case "F16":
		out := make([]float32, n)
		par.For(n, widenGrain, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				out[i] = float16.Frombits(binary.LittleEndian.Uint16(b[2*i:])).Float32()
			}
		})
		return out, nil
	case "BF16":
		out := make([]float32, n)
		par.For(n, widenGrain, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				out[i] = BF16ToFloat32(binary.LittleEndian.Uint16(b[2*i:]))
			}
		})
		return out, nil
	}
	return nil, errs.BadInputf("%s: tensor %q has dtype %s; only F32, F16 and BF16 convert to float32", t.File, name, t.DType)
}

// widenGrain is the fewest values a goroutine of Float32 widens.
const widenGrain = 1 << 18

// nativeLittleEndian is true on little-endian hosts, where F32 data can be
// used in place.
var nativeLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// BF16ToFloat32 widens a bfloat16 bit pattern (exact).
func BF16ToFloat32(b uint16) float32 { return math.Float32frombits(uint32(b) << 16) }

// Float32ToBF16 rounds f to the nearest bfloat16, ties to even, as torch
// does; NaN stays NaN.
func Float32ToBF16(f float32) uint16 {
	u := math.Float32bits(f)
	if f != f {
		return uint16(u>>16) | 0x40 // keep it a quiet NaN
	}
	u += 0x7FFF + (u>>16)&1
	return uint16(u >> 16)
}

// Rename gives each tensor the name rename returns for it, and drops those
// it returns keep false for, so that a checkpoint whose tensors sit under
// another model's prefixes (a multimodal checkpoint's text model) reads as
// that model's; Renamed applies rename to other names later (an adapter's
// modules). Two tensors given one name are an error, and the set is left
// as it was.
func (s *Set) Rename(rename func(name string) (string, bool)) error {
	out := make(map[string]TensorInfo, len(s.infos))
	from := make(map[string]string, len(s.infos))
	for _, n := range s.Names() {
		to, keep := rename(n)
		if !keep {
			continue
		}
		if prev, dup := from[to]; dup {
			return errs.BadInputf("%s: tensors %s and %s both read as %s", s.source, prev, n, to)
		}
		out[to], from[to] = s.infos[n], n
	}
	s.infos, s.rename = out, rename
	return nil
}

// Renamed is the name Rename gave a tensor called name (itself, keep true,
// when the set was not renamed).
func (s *Set) Renamed(name string) (string, bool) {
	if s.rename == nil {
		return name, true
	}
	return s.rename(name)
}
