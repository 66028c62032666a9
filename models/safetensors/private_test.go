//go:build unix

package safetensors

import (
	"bytes"
	"os"
	"testing"
)

// TestMapPrivate: a tensor mapped privately (from an offset that is not a
// page multiple) holds the file's bytes; writing it changes neither the
// Set's shared mapping nor the file.
func TestMapPrivate(t *testing.T) {
	a, b := le16(1, 2, 3), le16(0xBEEF, 0x3F80, 0x4000, 0xC040, 7)
	path := rawFile(t, `{"a":{"dtype":"BF16","shape":[3],"data_offsets":[0,6]},"b":{"dtype":"BF16","shape":[5],"data_offsets":[6,16]}}`,
		append(a, b...))
	s := openT(t, path)
	m, ok, err := s.MapPrivate("b")
	if err != nil || !ok {
		t.Fatalf("MapPrivate: ok %v, %v", ok, err)
	}
	if !bytes.Equal(m, b) {
		t.Fatalf("mapped % x, want % x", m, b)
	}
	m[0] = 0
	shared, _ := s.Bytes("b")
	file, _ := os.ReadFile(path)
	if !bytes.Equal(shared, b) || !bytes.Equal(file[len(file)-len(b):], b) {
		t.Errorf("a write to the private mapping reached the shared one (% x) or the file (% x)", shared, file[len(file)-len(b):])
	}
	if _, _, err := s.MapPrivate("c"); err == nil {
		t.Error("MapPrivate of a missing tensor: no error")
	}
}
