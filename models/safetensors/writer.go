package safetensors

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

// Tensor is one tensor to write: Data holds the little-endian bytes.
type Tensor struct {
	Name, DType string
	Shape       []int
	Data        []byte
}

// StreamTensor is a tensor whose bytes are produced on demand by Fill, so
// large checkpoints are written one tensor at a time. Fill must write
// exactly DTypeSize(DType) × product(Shape) bytes.
type StreamTensor struct {
	Name, DType string
	Shape       []int
	Fill        func(w io.Writer) error
}

// Write writes tensors to path in the safetensors format, atomically.
func Write(path string, tensors []Tensor, metadata map[string]string) error {
	st := make([]StreamTensor, len(tensors))
	for i, t := range tensors {
		data := t.Data
		st[i] = StreamTensor{Name: t.Name, DType: t.DType, Shape: t.Shape,
			Fill: func(w io.Writer) error { _, err := w.Write(data); return err }}
	}
	return WriteStream(path, st, metadata)
}

// dtypeRank orders dtypes as the Rust safetensors writer does (its Dtype
// enum order); tensors are laid out by descending rank, then by name, so
// wider types come first and stay aligned.
var dtypeRank = map[string]int{
	"BOOL": 0, "U8": 1, "I8": 2, "F8_E5M2": 3, "F8_E4M3": 4, "I16": 5, "U16": 6,
	"F16": 7, "BF16": 8, "I32": 9, "U32": 10, "F32": 11, "F64": 12, "I64": 13, "U64": 14,
}

// WriteStream writes tensors to path like the Python safetensors writer:
// "__metadata__" first, tensors sorted by (dtype rank desc, name), the
// header padded with spaces to a multiple of 8 bytes. The file is written to
// a temporary name in the same directory and renamed into place.
func WriteStream(path string, tensors []StreamTensor, metadata map[string]string) (err error) {
	list := append([]StreamTensor(nil), tensors...)
	sort.SliceStable(list, func(i, j int) bool {
		ri, rj := dtypeRank[list[i].DType], dtypeRank[list[j].DType]
		if ri != rj {
			return ri > rj
		}
		return list[i].Name < list[j].Name
	})
	header, lengths, err := buildHeader(list, metadata)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	w := bufio.NewWriterSize(tmp, 1<<20)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(header)))
	w.Write(n[:])
	w.Write(header)
	for i, t := range list {
		cw := &countingWriter{w: w}
		if err := t.Fill(cw); err != nil {
			return fmt.Errorf("write %s: tensor %s: %w", path, t.Name, err)
		}
		if cw.n != lengths[i] {
			return fmt.Errorf("write %s: tensor %s: wrote %d bytes, dtype and shape need %d", path, t.Name, cw.n, lengths[i])
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// buildHeader renders the JSON header (padded) and each tensor's byte length.
func buildHeader(list []StreamTensor, metadata map[string]string) ([]byte, []int64, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	if len(metadata) > 0 {
		keys := make([]string, 0, len(metadata))
		for k := range metadata {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString(`"__metadata__":{`)
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(&b, k)
			b.WriteByte(':')
			writeJSONString(&b, metadata[k])
		}
		b.WriteByte('}')
	}
	lengths := make([]int64, len(list))
	seen := map[string]bool{}
	var off int64
	for i, t := range list {
		width, ok := dtypeSizes[t.DType]
		if !ok {
			return nil, nil, fmt.Errorf("tensor %s: unknown dtype %q", t.Name, t.DType)
		}
		if seen[t.Name] || t.Name == "__metadata__" {
			return nil, nil, fmt.Errorf("duplicate or reserved tensor name %q", t.Name)
		}
		seen[t.Name] = true
		elems := int64(1)
		for _, d := range t.Shape {
			if d < 0 {
				return nil, nil, fmt.Errorf("tensor %s: negative dimension in shape %v", t.Name, t.Shape)
			}
			elems *= int64(d)
		}
		lengths[i] = elems * width
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		writeJSONString(&b, t.Name)
		fmt.Fprintf(&b, `:{"dtype":%q,"shape":[`, t.DType)
		for j, d := range t.Shape {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(d))
		}
		fmt.Fprintf(&b, `],"data_offsets":[%d,%d]}`, off, off+lengths[i])
		off += lengths[i]
	}
	b.WriteByte('}')
	for b.Len()%8 != 0 {
		b.WriteByte(' ')
	}
	return b.Bytes(), lengths, nil
}

func writeJSONString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s) // a string always marshals
	b.Write(enc)
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
