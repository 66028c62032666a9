package tasks

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/goeval/goeval/internal/errs"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// readParquet reads every row of a parquet file as a generic Doc: nested
// lists become []any, structs map[string]any, integers int64, floats float64.
func readParquet(path string) (t *table, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errs.BadInputf("open %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, errs.BadInputf("stat %s: %w", path, err)
	}
	defer func() { // parquet-go may panic on corrupt input
		if r := recover(); r != nil {
			t, err = nil, errs.BadInputf("%s: malformed parquet: %v", path, r)
		}
	}()
	if err := checkParquetFooter(f, st.Size()); err != nil {
		return nil, errs.BadInputf("%s: not a readable parquet file: %v", path, err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return nil, errs.BadInputf("%s: not a readable parquet file: %v", path, err)
	}
	if err := checkParquetSizes(pf, st.Size()); err != nil {
		return nil, errs.BadInputf("%s: %v", path, err)
	}
	t = &table{Keys: map[string][]string{}}
	schemaKeys(pf.Schema(), "", t.Keys)
	if pf.NumRows() == 0 { // parquet-go's reader fails to seek in a file without row groups
		return t, nil
	}
	r := parquet.NewReader(pf)
	defer r.Close()
	for i := 0; ; i++ {
		row := map[string]any{}
		if err := r.Read(&row); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, errs.BadInputf("%s row %d: malformed parquet row: %v", path, i, err)
		}
		t.Rows = append(t.Rows, normalizeValue(row).(map[string]any))
	}
	return t, nil
}

// schemaKeys records the field order of every struct in the schema, by
// dotted path; LIST wrappers (list/element) are looked through.
func schemaKeys(n parquet.Node, path string, out map[string][]string) {
	if n.Leaf() {
		return
	}
	if isListNode(n) {
		elem := n.Fields()[0]
		if !elem.Leaf() && len(elem.Fields()) == 1 {
			elem = elem.Fields()[0]
		}
		schemaKeys(elem, path, out)
		return
	}
	for _, f := range n.Fields() {
		out[path] = append(out[path], f.Name())
		schemaKeys(f, joinPath(path, f.Name()), out)
	}
}

func isListNode(n parquet.Node) bool {
	lt := n.Type().LogicalType()
	if lt == nil || lt.Value == nil || len(n.Fields()) != 1 {
		return false
	}
	_, ok := lt.Value.(*format.ListType)
	return ok
}

// normalizeValue maps parquet-go's decoded values onto Doc's value types.
func normalizeValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeValue(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalizeValue(e)
		}
		return x
	case int:
		return int64(x)
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint64:
		return int64(x)
	case float32:
		return float64(x)
	case []byte:
		return string(x)
	case nil, string, bool, int64, float64:
		return x
	}
	return fmt.Sprint(v)
}

// maxParquetExpansion bounds how much larger than the file its decoded
// data may claim to be. Datasets compress a few times at most; a header
// claiming far more is corrupt, and trusting it would make parquet-go
// allocate gigabytes for a file of a few bytes (found by FuzzParquet).
const maxParquetExpansion = 256

// checkParquetSizes rejects a file whose metadata claims more rows than
// bytes, or more values or uncompressed bytes than maxParquetExpansion
// times its size.
func checkParquetSizes(pf *parquet.File, size int64) error {
	limit := (size + 4096) * maxParquetExpansion
	// Every dataset row holds text, so a real file spends at least a byte
	// per row; more rows than bytes is a lie that would make the reader
	// decode millions of empty rows.
	maxRows := size + 1024
	md := pf.Metadata()
	if md.NumRows < 0 || md.NumRows > maxRows {
		return fmt.Errorf("metadata claims %d rows in a %d-byte file; the file is corrupt", md.NumRows, size)
	}
	for _, rg := range md.RowGroups {
		if rg.NumRows < 0 || rg.NumRows > maxRows || rg.TotalByteSize < 0 || rg.TotalByteSize > limit {
			return fmt.Errorf("a row group claims %d rows, %d bytes in a %d-byte file; the file is corrupt", rg.NumRows, rg.TotalByteSize, size)
		}
		for _, cc := range rg.Columns {
			m := cc.MetaData
			if m.NumValues < 0 || m.NumValues > limit || m.TotalUncompressedSize < 0 || m.TotalUncompressedSize > limit ||
				m.TotalCompressedSize < 0 || m.TotalCompressedSize > size {
				return fmt.Errorf("column %v claims %d values, %d bytes in a %d-byte file; the file is corrupt",
					m.PathInSchema, m.NumValues, m.TotalUncompressedSize, size)
			}
		}
	}
	return nil
}

// checkParquetFooter checks the file's trailer before parquet-go reads it:
// parquet-go allocates the footer length the last 8 bytes claim before it
// compares it with the file size, so a corrupt length made a 2 KB file
// allocate 2 GB (found by FuzzParquet).
func checkParquetFooter(f io.ReaderAt, size int64) error {
	const trailer = 8 // footer length (uint32, little endian) + "PAR1"
	if size < 4+trailer {
		return fmt.Errorf("%d bytes is too short for a parquet file", size)
	}
	var b [trailer]byte
	if _, err := f.ReadAt(b[:], size-trailer); err != nil {
		return err
	}
	if string(b[4:]) != "PAR1" {
		return fmt.Errorf("no parquet magic at the end of the file")
	}
	n := int64(b[0]) | int64(b[1])<<8 | int64(b[2])<<16 | int64(b[3])<<24
	if n > size-4-trailer {
		return fmt.Errorf("the footer claims %d bytes, more than the file's %d", n, size)
	}
	return nil
}
