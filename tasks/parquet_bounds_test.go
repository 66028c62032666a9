package tasks

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/parquet-go/parquet-go"
)

// TestParquetSizeBounds: metadata claiming far more data than the file
// holds is rejected before parquet-go allocates for it.
func TestParquetSizeBounds(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "test.parquet")
	type row struct {
		Q string `parquet:"question"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf)
	if _, err := w.Write([]row{{"a"}, {"b"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(path)
	defer f.Close()
	pf, err := parquet.OpenFile(f, int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkParquetSizes(pf, int64(buf.Len())); err != nil {
		t.Errorf("a valid file was rejected: %v", err)
	}
	pf.Metadata().NumRows = 1 << 40
	if err := checkParquetSizes(pf, int64(buf.Len())); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("2^40 rows in a %d-byte file accepted: %v", buf.Len(), err)
	}
}

// TestParquetFooterLength: a footer length larger than the file (the
// FuzzParquet finding: 2^31-1 in a 1946-byte file made parquet-go allocate
// 2 GB before failing) is one bad-input error, with next to no allocation.
func TestParquetFooterLength(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.parquet")
	data := append([]byte("PAR1"), bytes.Repeat([]byte{0x15}, 64)...)
	data = append(data, 0xff, 0xff, 0xff, 0x7f, 'P', 'A', 'R', '1')
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := readParquet(path)
	runtime.ReadMemStats(&after)
	if err == nil || !errs.IsBadInput(err) || !strings.Contains(err.Error(), "footer claims 2147483647 bytes") {
		t.Errorf("got %v, want a bad-input error about the footer length", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("reading it allocated %d MB", grew>>20)
	}
}
