package pyworker

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/goeval/goeval/internal/py"
)

// Python values cross the pipe as JSON with a few tags, so that what a
// hook returns comes back as the same Python value (worker.py's enc and
// dec are the other half):
//
//   - None, bool, str, list: JSON null, true/false, strings, arrays.
//   - int: a JSON number without '.', 'e' or 'E' (int64 range), else
//     {"$int": "digits"}.
//   - float: a JSON number in Python's repr, which always has '.' or 'e'
//     ("1.0", "1e-05"), so 1 and 1.0 stay apart; nan, inf and -inf are
//     {"$float": "nan"} and so on.
//   - dict: a JSON object in insertion order when every key is a str and it
//     is not a single key starting with '$' (which would read as a tag);
//     any other dict is {"$dict": [[key, value], ...]}.
//   - tuple {"$tuple": [...]}, set and frozenset {"$set": [...]} (in
//     iteration order), bytes {"$bytes": "base64"}.
//   - numpy: a scalar is {"$np": [dtype.str, value]}, an array
//     {"$ndarray": [dtype name, shape, nested lists]}.
//
// Anything else a hook returns is an error naming its type.

// Tuple is a Python tuple.
type Tuple []any

// Raw is a value already in the tagged JSON form (from Marshal), written
// as it is.
type Raw []byte

// Dict is a Python dict that JSON objects cannot carry (a key that is not
// a str), as its items in order.
type Dict []Item

// Item is one key and value of a Dict.
type Item struct{ Key, Value any }

// BigInt is a Python int outside the int64 range, in decimal.
type BigInt string

// Set is a Python set or frozenset, in the order Python iterated it.
type Set []any

// NumPy is a numpy scalar: its dtype's str ("<f8", "<i8", "|b1") and its
// value as a Python scalar.
type NumPy struct {
	DType string
	Value any
}

// NDArray is a numpy array: its dtype's name, its shape and its elements
// as nested lists (ndarray.tolist()).
type NDArray struct {
	DType string
	Shape []int
	Data  any
}

// Encode appends v in the tagged JSON form. It takes nil, bool, string,
// the Go int and float types, []any, []string, Tuple, Dict, Set, BigInt,
// NumPy, NDArray, []byte, Raw, *py.Map[any] (in its order) and map[string]any
// (keys sorted: order maps with py.Map first where it matters).
func Encode(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		writeString(b, x)
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case int32:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case float64:
		writeFloat(b, x)
	case float32:
		writeFloat(b, float64(x))
	case BigInt:
		return encodeTag(b, "$int", string(x))
	case Raw:
		b.Write(x)
	default:
		return encodeContainer(b, v)
	}
	return nil
}

// encodeContainer is Encode for lists, tuples, dicts, sets and numpy
// values.
func encodeContainer(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case []any:
		return encodeList(b, x)
	case []string:
		l := make([]any, len(x))
		for i, s := range x {
			l[i] = s
		}
		return encodeList(b, l)
	case Tuple:
		return encodeTag(b, "$tuple", []any(x))
	case Set:
		return encodeTag(b, "$set", []any(x))
	case []byte:
		return encodeTag(b, "$bytes", base64.StdEncoding.EncodeToString(x))
	case NumPy:
		return encodeTag(b, "$np", []any{x.DType, x.Value})
	case NDArray:
		shape := make([]any, len(x.Shape))
		for i, n := range x.Shape {
			shape[i] = n
		}
		return encodeTag(b, "$ndarray", []any{x.DType, shape, x.Data})
	case Dict:
		items := make([]any, len(x))
		for i, it := range x {
			items[i] = []any{it.Key, it.Value}
		}
		return encodeTag(b, "$dict", items)
	case *py.Map[any]:
		if x == nil {
			b.WriteString("null")
			return nil
		}
		return encodeObject(b, x.Keys(), func(k string) any { return x.Value(k) })
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return encodeObject(b, keys, func(k string) any { return x[k] })
	}
	return fmt.Errorf("pyworker: cannot pass a Go %T to Python", v)
}

// Marshal is Encode into a new slice.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	err := Encode(&b, v)
	return b.Bytes(), err
}

func writeString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s) // cannot fail for a string; invalid UTF-8 becomes U+FFFD
	b.Write(enc)
}

func writeFloat(b *bytes.Buffer, f float64) {
	switch {
	case math.IsNaN(f):
		b.WriteString(`{"$float": "nan"}`)
	case math.IsInf(f, 1):
		b.WriteString(`{"$float": "inf"}`)
	case math.IsInf(f, -1):
		b.WriteString(`{"$float": "-inf"}`)
	default:
		b.WriteString(py.Repr(f)) // always with '.' or 'e'
	}
}

func encodeTag(b *bytes.Buffer, tag string, v any) error {
	b.WriteString(`{"` + tag + `": `)
	if err := Encode(b, v); err != nil {
		return err
	}
	b.WriteByte('}')
	return nil
}

func encodeList(b *bytes.Buffer, l []any) error {
	b.WriteByte('[')
	for i, e := range l {
		if i > 0 {
			b.WriteString(", ")
		}
		if err := Encode(b, e); err != nil {
			return err
		}
	}
	b.WriteByte(']')
	return nil
}

// encodeObject writes a str-keyed dict: a JSON object, or a $dict when a
// single key would read as a tag.
func encodeObject(b *bytes.Buffer, keys []string, get func(string) any) error {
	if len(keys) == 1 && strings.HasPrefix(keys[0], "$") {
		return Encode(b, Dict{{keys[0], get(keys[0])}})
	}
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		writeString(b, k)
		b.WriteString(": ")
		if err := Encode(b, get(k)); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// Decode reads one value in the tagged JSON form: nil, bool, string,
// int64, float64, BigInt, []any, *py.Map[any] (str-keyed dicts, in order),
// Dict, Tuple, Set, []byte, NumPy or NDArray.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("pyworker: trailing data after the value")
	}
	return v, nil
}

// maxDepth bounds nesting, as Python's json module does with its
// recursion limit.
const maxDepth = 900

func decodeValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("pyworker: values nested deeper than %d", maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			return decodeList(dec, depth)
		}
		if t == '{' {
			return decodeObject(dec, depth)
		}
		return nil, fmt.Errorf("pyworker: unexpected %v", t)
	case json.Number:
		return number(string(t))
	}
	return tok, nil // nil, bool, string
}

func decodeList(dec *json.Decoder, depth int) ([]any, error) {
	out := []any{}
	for dec.More() {
		v, err := decodeValue(dec, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	_, err := dec.Token()
	return out, err
}

func decodeObject(dec *json.Decoder, depth int) (any, error) {
	m := py.NewMap[any]()
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := kt.(string)
		v, err := decodeValue(dec, depth+1)
		if err != nil {
			return nil, err
		}
		m.Set(k, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if m.Len() == 1 && strings.HasPrefix(m.Keys()[0], "$") {
		k := m.Keys()[0]
		return decodeTag(k, m.Value(k))
	}
	return m, nil
}

// number is an int64 for a JSON number without '.', 'e' or 'E', else a
// float64.
func number(s string) (any, error) {
	if !strings.ContainsAny(s, ".eE") {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return BigInt(s), nil
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		err = nil // ±inf or 0, as Python's json.loads reads it
	}
	if err != nil {
		return nil, fmt.Errorf("pyworker: number %s: %w", s, err)
	}
	return f, nil
}
