// Package safetensors reads and writes Hugging Face .safetensors files.
//
// A file is an 8-byte little-endian header length N, N bytes of JSON header
// ({"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, ...,
// optionally "__metadata__": {string: string}}), then the data section; the
// offsets are relative to the start of the data section. Files are
// memory-mapped read-only and validated completely at open time, so a
// corrupt or truncated file fails with one error naming the file and the
// tensor instead of at first use.
package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"sort"

	"github.com/goeval/goeval/internal/errs"
)

// MaxHeaderSize is the largest accepted JSON header (the Python reader's limit).
const MaxHeaderSize = 100_000_000

// dtypeSizes maps every dtype name the format defines to its byte width.
var dtypeSizes = map[string]int64{
	"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1,
	"I16": 2, "U16": 2, "F16": 2, "BF16": 2,
	"I32": 4, "U32": 4, "F32": 4,
	"I64": 8, "U64": 8, "F64": 8,
}

// DTypeSize returns the byte width of dtype, or 0 if the dtype is unknown.
func DTypeSize(dtype string) int64 { return dtypeSizes[dtype] }

// TensorInfo describes one tensor of a file. Offset is absolute (from the
// start of the file), Length is in bytes.
type TensorInfo struct {
	Name, DType string
	Shape       []int
	File        string
	Offset      int64
	Length      int64
}

// NumElements is the product of Shape (1 for a scalar).
func (t TensorInfo) NumElements() int64 {
	n := int64(1)
	for _, d := range t.Shape {
		n *= int64(d)
	}
	return n
}

type rawEntry struct {
	DType       string  `json:"dtype"`
	Shape       []int   `json:"shape"`
	DataOffsets []int64 `json:"data_offsets"`
}

// parseHeader validates the header of a whole file held in buf (the mmap)
// and returns its tensors sorted by name and its metadata.
func parseHeader(path string, buf []byte) (map[string]TensorInfo, map[string]string, error) {
	size := int64(len(buf))
	if size < 8 {
		return nil, nil, errs.BadInputf("%s: file is %d bytes, shorter than the 8-byte safetensors header length; the file is truncated or not safetensors", path, size)
	}
	n := binary.LittleEndian.Uint64(buf[:8])
	if n > MaxHeaderSize {
		return nil, nil, errs.BadInputf("%s: header length %d exceeds the %d-byte limit; the file is corrupt or not safetensors", path, n, MaxHeaderSize)
	}
	if int64(n) > size-8 {
		return nil, nil, errs.BadInputf("%s: header length %d runs past the end of the %d-byte file; the file is truncated", path, n, size)
	}
	dataStart := 8 + int64(n)
	raw := map[string]json.RawMessage{}
	dec := json.NewDecoder(bytes.NewReader(buf[8:dataStart]))
	if err := dec.Decode(&raw); err != nil {
		return nil, nil, errs.BadInputf("%s: malformed JSON header: %v", path, err)
	}
	meta := map[string]string{}
	infos := map[string]TensorInfo{}
	for name, msg := range raw {
		if name == "__metadata__" {
			if err := json.Unmarshal(msg, &meta); err != nil {
				return nil, nil, errs.BadInputf("%s: __metadata__ must map strings to strings: %v", path, err)
			}
			continue
		}
		info, err := parseEntry(path, name, msg, dataStart)
		if err != nil {
			return nil, nil, err
		}
		infos[name] = info
	}
	if err := checkLayout(path, infos, size); err != nil {
		return nil, nil, err
	}
	return infos, meta, nil
}

// parseEntry validates one tensor entry: known dtype, non-negative shape,
// ordered offsets, byte length equal to dtype size times element count.
func parseEntry(path, name string, msg json.RawMessage, dataStart int64) (TensorInfo, error) {
	var e rawEntry
	if err := json.Unmarshal(msg, &e); err != nil {
		return TensorInfo{}, errs.BadInputf("%s: tensor %q: malformed header entry: %v", path, name, err)
	}
	width, ok := dtypeSizes[e.DType]
	if !ok {
		return TensorInfo{}, errs.BadInputf("%s: tensor %q has unknown dtype %q", path, name, e.DType)
	}
	if len(e.DataOffsets) != 2 {
		return TensorInfo{}, errs.BadInputf("%s: tensor %q: data_offsets must be [begin, end], got %v", path, name, e.DataOffsets)
	}
	begin, end := e.DataOffsets[0], e.DataOffsets[1]
	if begin < 0 || end < begin {
		return TensorInfo{}, errs.BadInputf("%s: tensor %q has invalid data_offsets [%d, %d]", path, name, begin, end)
	}
	elems := int64(1)
	for _, d := range e.Shape {
		if d < 0 {
			return TensorInfo{}, errs.BadInputf("%s: tensor %q has negative dimension in shape %v", path, name, e.Shape)
		}
		// elems × width must fit in int64: bound elems by 2^62 / width.
		if d > 0 && elems > (1<<62)/width/int64(d) {
			return TensorInfo{}, errs.BadInputf("%s: tensor %q has an impossibly large shape %v", path, name, e.Shape)
		}
		elems *= int64(d)
	}
	if e.Shape == nil {
		e.Shape = []int{}
	}
	if elems*width != end-begin {
		return TensorInfo{}, errs.BadInputf("%s: tensor %q: dtype %s × shape %v = %d bytes, but data_offsets [%d, %d] span %d bytes",
			path, name, e.DType, e.Shape, elems*width, begin, end, end-begin)
	}
	return TensorInfo{Name: name, DType: e.DType, Shape: e.Shape, File: path,
		Offset: dataStart + begin, Length: end - begin}, nil
}

// checkLayout rejects tensors that overlap or end beyond the end of the
// file (offsets are absolute, so fileSize bounds them all).
func checkLayout(path string, infos map[string]TensorInfo, fileSize int64) error {
	list := make([]TensorInfo, 0, len(infos))
	for _, t := range infos {
		if t.Length > 0 {
			list = append(list, t)
		}
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].Offset != list[j].Offset {
			return list[i].Offset < list[j].Offset
		}
		return list[i].Name < list[j].Name
	})
	for i, t := range list {
		if i > 0 && t.Offset < list[i-1].Offset+list[i-1].Length {
			return errs.BadInputf("%s: tensors %q and %q overlap in the data section", path, list[i-1].Name, t.Name)
		}
	}
	for _, t := range list {
		if end := t.Offset + t.Length; end > fileSize {
			return errs.BadInputf("%s: tensor %q ends at byte %d but the file has %d bytes; the file is truncated or its data_offsets are wrong",
				path, t.Name, end, fileSize)
		}
	}
	return nil
}
