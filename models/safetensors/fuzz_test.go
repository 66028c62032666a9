package safetensors

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/internal/errs"
)

// headerFile builds a safetensors file from a raw JSON header and a data
// section, for seeds the writer would refuse to produce.
func headerFile(header string, data []byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	return append(append(b, header...), data...)
}

// FuzzHeader parses arbitrary bytes as a whole safetensors file: no panic,
// every error bad input, and every accepted tensor lies inside the file
// with a length equal to dtype size × element count (no overflow), so its
// bytes and float32 values can be read back.
func FuzzHeader(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "python_writer.safetensors"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	path := filepath.Join(f.TempDir(), "seed.safetensors")
	if err := Write(path, []Tensor{
		{Name: "w", DType: "BF16", Shape: []int{2, 2}, Data: le16(0x3F80, 0, 0x4000, 0xC000)},
		{Name: "h", DType: "F16", Shape: []int{1}, Data: le16(0x3C00)},
		{Name: "s", DType: "F32", Shape: []int{}, Data: le32(7)},
		{Name: "e", DType: "I64", Shape: []int{0, 3}},
	}, map[string]string{"format": "pt"}); err != nil {
		f.Fatal(err)
	}
	if b, err = os.ReadFile(path); err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(binary.LittleEndian.AppendUint64(nil, 1<<60)) // header length 2^60
	f.Add(headerFile(`{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}}`, make([]byte, 3)))
	f.Add(headerFile(`{"__metadata__":{"k":1}}`, nil))
	f.Fuzz(func(t *testing.T, buf []byte) {
		infos, _, err := parseHeader("f.safetensors", buf)
		if err != nil {
			if !errs.IsBadInput(err) {
				t.Fatalf("error is not bad input: %v", err)
			}
			return
		}
		s := &Set{source: "f.safetensors", maps: map[string][]byte{"f.safetensors": buf}, infos: infos}
		for name, ti := range infos {
			checkTensor(t, s, name, ti, int64(len(buf)))
		}
	})
}

// checkTensor asserts the invariants of one accepted tensor.
func checkTensor(t *testing.T, s *Set, name string, ti TensorInfo, size int64) {
	t.Helper()
	w := DTypeSize(ti.DType)
	if w == 0 || ti.Offset < 8 || ti.Length < 0 || ti.Offset+ti.Length > size {
		t.Fatalf("%s: accepted %+v in a %d-byte file", name, ti, size)
	}
	if ti.Length%w != 0 || ti.Length/w != ti.NumElements() {
		t.Fatalf("%s: %d bytes of %s but shape %v has %d elements", name, ti.Length, ti.DType, ti.Shape, ti.NumElements())
	}
	b, err := s.Bytes(name)
	if err != nil || int64(len(b)) != ti.Length {
		t.Fatalf("%s: Bytes gave %d bytes, %v; want %d", name, len(b), err, ti.Length)
	}
	v, err := s.Float32(name)
	switch ti.DType {
	case "F32", "F16", "BF16":
		if err != nil || int64(len(v)) != ti.NumElements() {
			t.Fatalf("%s: Float32 gave %d values, %v; want %d", name, len(v), err, ti.NumElements())
		}
	default:
		if !errs.IsBadInput(err) {
			t.Fatalf("%s: Float32 of %s: %v, want bad input", name, ti.DType, err)
		}
	}
}

// FuzzIndex opens a sharded checkpoint whose model.safetensors.index.json
// is arbitrary bytes, next to two valid shards: no panic, every error bad
// input, and an accepted index names at least one tensor and reads every
// tensor from a shard inside the checkpoint directory.
func FuzzIndex(f *testing.F) {
	seed := writeShards(f, nil)
	b, err := os.ReadFile(filepath.Join(seed, IndexFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"metadata":{"total_size":8},"weight_map":{"a":"model-00001-of-00002.safetensors","b":"model-00001-of-00002.safetensors"}}`))
	f.Add([]byte(`{"weight_map":{"a":"../model-00001-of-00002.safetensors"}}`))
	f.Add([]byte(`{"weight_map":{"a":"."}}`))
	f.Add([]byte(`{"metadata":{"x":[1,{"y":null}]},"weight_map":{}}`))
	shards := map[string][]byte{}
	for _, e := range []string{ShardName(1, 2), ShardName(2, 2)} {
		if shards[e], err = os.ReadFile(filepath.Join(seed, e)); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, idx []byte) {
		dir := t.TempDir()
		for name, data := range shards {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, IndexFile), idx, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(dir)
		if err != nil {
			if !errs.IsBadInput(err) {
				t.Fatalf("error is not bad input: %v", err)
			}
			return
		}
		defer s.Close()
		if len(s.Names()) == 0 {
			t.Fatalf("accepted an index naming no tensors: %q", idx)
		}
		for _, n := range s.Names() {
			ti, _ := s.Info(n)
			if filepath.Dir(ti.File) != dir {
				t.Fatalf("tensor %s read from %s, outside %s", n, ti.File, dir)
			}
			if _, err := s.Bytes(n); err != nil {
				t.Fatal(err)
			}
		}
	})
}
