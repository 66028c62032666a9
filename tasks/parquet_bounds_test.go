package tasks

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
