package safetensors

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/x448/float16"
)

func le16(vals ...uint16) []byte {
	b := make([]byte, 2*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint16(b[2*i:], v)
	}
	return b
}

func le32(vals ...float32) []byte {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

func openT(t *testing.T, path string) *Set {
	t.Helper()
	s, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestRoundTripDTypes(t *testing.T) {
	f32 := []float32{0, 1, -2.5, 3.25e-3, float32(math.Inf(1)), 65504, 1e-30}
	// Hand-decoded half and bfloat16 bit patterns.
	f16bits := []uint16{0x3C00, 0xC000, 0x3555, 0x7BFF, 0x0001, 0x8000, 0x7C00}
	f16want := []float32{1, -2, 0.333251953125, 65504, 5.960464477539063e-08, float32(math.Copysign(0, -1)), float32(math.Inf(1))}
	bf16bits := []uint16{0x3F80, 0xC040, 0x3EAB, 0x7F80, 0x0000, 0x4049}
	bf16want := []float32{1, -3, 0.333984375, float32(math.Inf(1)), 0, 3.140625}
	dir := t.TempDir()
	path := filepath.Join(dir, "m.safetensors")
	err := Write(path, []Tensor{
		{Name: "a.f32", DType: "F32", Shape: []int{7}, Data: le32(f32...)},
		{Name: "b.f16", DType: "F16", Shape: []int{7, 1}, Data: le16(f16bits...)},
		{Name: "c.bf16", DType: "BF16", Shape: []int{2, 3}, Data: le16(bf16bits...)},
		{Name: "d.scalar", DType: "F32", Shape: []int{}, Data: le32(7)},
		{Name: "e.empty", DType: "F32", Shape: []int{0, 4}},
	}, map[string]string{"format": "pt"})
	if err != nil {
		t.Fatal(err)
	}
	s := openT(t, path)
	if got := s.Names(); !reflect.DeepEqual(got, []string{"a.f32", "b.f16", "c.bf16", "d.scalar", "e.empty"}) {
		t.Fatalf("Names = %v", got)
	}
	if s.Metadata()["format"] != "pt" {
		t.Errorf("metadata = %v", s.Metadata())
	}
	check := func(name string, want []float32) {
		t.Helper()
		got, err := s.Float32(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d values, want %d", name, len(got), len(want))
		}
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Errorf("%s[%d] = %v, want %v", name, i, got[i], want[i])
			}
		}
	}
	check("a.f32", f32)
	check("b.f16", f16want)
	check("c.bf16", bf16want)
	check("d.scalar", []float32{7})
	check("e.empty", nil)
	// The F16 conversion agrees with x448/float16 on every bit pattern.
	for _, b := range f16bits {
		if a, w := float16.Frombits(b).Float32(), f16want[indexOf(f16bits, b)]; math.Float32bits(a) != math.Float32bits(w) {
			t.Errorf("x448 %#04x = %v, hand value %v", b, a, w)
		}
	}
	info, _ := s.Info("c.bf16")
	if info.DType != "BF16" || !reflect.DeepEqual(info.Shape, []int{2, 3}) || info.Length != 12 || info.File != path {
		t.Errorf("Info = %+v", info)
	}
	if _, ok := s.Info("nope"); ok {
		t.Error("Info(nope) found a tensor")
	}
}

func indexOf(xs []uint16, x uint16) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

func TestFloat32ToBF16(t *testing.T) {
	cases := []struct {
		in   uint32
		want uint16
	}{
		{0x3F800000, 0x3F80}, // 1
		{0x3F808000, 0x3F80}, // tie, even stays
		{0x3F818000, 0x3F82}, // tie, odd rounds up
		{0x3F808001, 0x3F81}, // above half
		{0x7F7FFFFF, 0x7F80}, // max float rounds to +Inf, like torch
		{0xC0400000, 0xC040}, // -3
	}
	for _, c := range cases {
		if got := Float32ToBF16(math.Float32frombits(c.in)); got != c.want {
			t.Errorf("Float32ToBF16(%#08x) = %#04x, want %#04x", c.in, got, c.want)
		}
	}
	if nan := BF16ToFloat32(Float32ToBF16(float32(math.NaN()))); nan == nan {
		t.Error("NaN did not stay NaN")
	}
}

func TestWriteLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.safetensors")
	err := Write(path, []Tensor{
		{Name: "z", DType: "F16", Shape: []int{1}, Data: le16(0x3C00)},
		{Name: "b", DType: "F32", Shape: []int{1}, Data: le32(1)},
		{Name: "a", DType: "F32", Shape: []int{1}, Data: le32(2)},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	n := binary.LittleEndian.Uint64(raw)
	if n%8 != 0 {
		t.Errorf("header length %d is not a multiple of 8", n)
	}
	header := strings.TrimRight(string(raw[8:8+n]), " ")
	want := `{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]},"z":{"dtype":"F16","shape":[1],"data_offsets":[8,10]}}`
	if header != want {
		t.Errorf("header\n got %s\nwant %s", header, want)
	}
	if err := Write(path, []Tensor{{Name: "a", DType: "F32", Shape: []int{2}, Data: le32(1)}}, nil); err == nil {
		t.Error("short data accepted")
	}
	if _, err := OpenFile(path); err != nil {
		t.Errorf("failed write damaged the previous file: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*")); len(m) != 0 {
		t.Errorf("temporary files left behind: %v", m)
	}
}

// rawFile writes an 8-byte length, header, and data as a file.
func rawFile(t *testing.T, header string, data []byte) string {
	t.Helper()
	b := make([]byte, 8, 8+len(header)+len(data))
	binary.LittleEndian.PutUint64(b, uint64(len(header)))
	b = append(append(b, header...), data...)
	path := filepath.Join(t.TempDir(), "bad.safetensors")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestBadInput(t *testing.T) {
	ok := func(name string) string {
		return `"` + name + `":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}`
	}
	cases := []struct {
		name, header string
		data         []byte
		want         string
	}{
		{"malformed JSON", `{"a":{"dtype":"F32",`, nil, "malformed JSON"},
		{"unknown dtype", `{"a":{"dtype":"F17","shape":[2],"data_offsets":[0,8]}}`, make([]byte, 8), `unknown dtype "F17"`},
		{"wrong dtype length", `{"a":{"dtype":"F16","shape":[2],"data_offsets":[0,8]}}`, make([]byte, 8), "span 8 bytes"},
		{"offsets outside file", `{"a":{"dtype":"F32","shape":[2],"data_offsets":[100,108]}}`, make([]byte, 8), "ends at byte"},
		{"truncated data", `{` + ok("a") + `}`, make([]byte, 5), "truncated"},
		{"overlap", `{` + ok("a") + `,"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, make([]byte, 8), "overlap"},
		{"bad offsets", `{"a":{"dtype":"F32","shape":[1],"data_offsets":[8,4]}}`, make([]byte, 8), "invalid data_offsets"},
		{"bad metadata", `{"__metadata__":{"k":1}}`, nil, "__metadata__"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := rawFile(t, c.header, c.data)
			expectBad(t, path, c.want)
		})
	}
	t.Run("short file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "short.safetensors")
		os.WriteFile(path, []byte{1, 2, 3}, 0o644)
		expectBad(t, path, "shorter than the 8-byte")
	})
	t.Run("header too large", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "big.safetensors")
		b := make([]byte, 16)
		binary.LittleEndian.PutUint64(b, 200_000_000)
		os.WriteFile(path, b, 0o644)
		expectBad(t, path, "exceeds")
	})
	t.Run("header beyond file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "beyond.safetensors")
		b := make([]byte, 16)
		binary.LittleEndian.PutUint64(b, 1000)
		os.WriteFile(path, b, 0o644)
		expectBad(t, path, "past the end")
	})
	t.Run("truncated real file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "m.safetensors")
		if err := Write(path, []Tensor{{Name: "w", DType: "F32", Shape: []int{4}, Data: le32(1, 2, 3, 4)}}, nil); err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(path)
		os.Truncate(path, st.Size()-3)
		expectBad(t, path, `tensor "w" ends at byte`)
	})
	t.Run("missing file", func(t *testing.T) {
		expectBad(t, filepath.Join(t.TempDir(), "none.safetensors"), "no such file")
	})
}

func expectBad(t *testing.T, path, want string) {
	t.Helper()
	s, err := OpenFile(path)
	if err == nil {
		s.Close()
		t.Fatalf("%s: no error", path)
	}
	if !errs.IsBadInput(err) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q: want bad input naming %s and containing %q", err, path, want)
	}
}

func TestFloat32RejectsIntegers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "i.safetensors")
	if err := Write(path, []Tensor{{Name: "ids", DType: "I64", Shape: []int{1}, Data: make([]byte, 8)}}, nil); err != nil {
		t.Fatal(err)
	}
	s := openT(t, path)
	if _, err := s.Float32("ids"); err == nil || !strings.Contains(err.Error(), "I64") {
		t.Errorf("Float32 on I64: %v", err)
	}
	if _, err := s.Float32("missing"); err == nil {
		t.Error("Float32 on a missing tensor: no error")
	}
}

// TestPythonWriterGolden writes the tensors of parity/synth/check_synth.py
// and requires the bytes of the Python safetensors writer (committed in
// testdata/python_writer.safetensors), then reads the golden back.
func TestPythonWriterGolden(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join("testdata", "python_writer.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	i64 := make([]byte, 16)
	binary.LittleEndian.PutUint64(i64, 7)
	binary.LittleEndian.PutUint64(i64[8:], math.MaxUint64) // -1
	path := filepath.Join(t.TempDir(), "go.safetensors")
	err = Write(path, []Tensor{
		{Name: "b.bf16", DType: "BF16", Shape: []int{4}, Data: le16(0x3F80, 0xC040, 0x3EAB, 0x4020)},
		{Name: "a.f32", DType: "F32", Shape: []int{2, 3}, Data: le32(-1, -0.5, 0, 0.5, 1, 1.5)},
		{Name: "c.f16", DType: "F16", Shape: []int{3}, Data: le16(0x3C00, 0xC000, 0x3800)},
		{Name: "d.i64", DType: "I64", Shape: []int{2}, Data: i64},
	}, map[string]string{"format": "pt"})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != string(golden) {
		t.Errorf("Go writer output differs from the Python writer's:\n got %q\nwant %q", got, golden)
	}
	s := openT(t, filepath.Join("testdata", "python_writer.safetensors"))
	if v, err := s.Float32("b.bf16"); err != nil || !reflect.DeepEqual(v, []float32{1, -3, 0.333984375, 2.5}) {
		t.Errorf("b.bf16 = %v, %v", v, err)
	}
}

// TestRename: Rename gives tensors new names (their bytes follow), drops
// those it is told to, reports two tensors given one name as a bad input
// leaving the set as it was, and Renamed applies the same renaming later.
func TestRename(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.safetensors")
	err := Write(path, []Tensor{
		{Name: "lm.model.a", DType: "F32", Shape: []int{1}, Data: le32(1)},
		{Name: "lm.model.b", DType: "F32", Shape: []int{1}, Data: le32(2)},
		{Name: "vision.c", DType: "F32", Shape: []int{1}, Data: le32(3)},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := openT(t, path)
	if err := s.Rename(func(n string) (string, bool) { return "x", true }); !errs.IsBadInput(err) || !strings.Contains(err.Error(), "both read as x") {
		t.Errorf("colliding names: %v", err)
	}
	if got := s.Names(); len(got) != 3 || got[0] != "lm.model.a" {
		t.Fatalf("after a failed Rename, Names = %v", got)
	}
	text := func(n string) (string, bool) {
		if strings.HasPrefix(n, "vision.") {
			return "", false
		}
		return strings.Replace(n, "lm.model.", "model.", 1), true
	}
	if err := s.Rename(text); err != nil {
		t.Fatal(err)
	}
	if got := s.Names(); !reflect.DeepEqual(got, []string{"model.a", "model.b"}) {
		t.Fatalf("Names = %v", got)
	}
	if v, err := s.Float32("model.b"); err != nil || v[0] != 2 {
		t.Errorf("model.b = %v, %v; want [2]", v, err)
	}
	if n, keep := s.Renamed("lm.model.z"); n != "model.z" || !keep {
		t.Errorf("Renamed(lm.model.z) = %q, %v", n, keep)
	}
	if _, keep := s.Renamed("vision.q"); keep {
		t.Error("Renamed kept a dropped prefix")
	}
}
