package py

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The encoder below reproduces Python's json.dumps(..., ensure_ascii=False)
// byte for byte, because lm-eval hashes such output (doc_hash) and users
// diff goeval's files against lm-eval's. Differences from encoding/json:
// separators ", " and ": " (compact) or "," + newline (indent), floats in
// Python repr ("1.0", "1e-05"), raw non-ASCII and no escaping of < > &.

const (
	pyCompact = -1 // json.dumps(x): one line, ", " and ": "
	pyIndent2 = 2  // json.dumps(x, indent=2)
)

// JSON returns Python's json.dumps(v, ensure_ascii=False), with indent=2
// when indent is true. Objects should be *Map to keep key order; Go maps are
// written with sorted keys.
func JSON(v any, indent bool) ([]byte, error) {
	mode := pyCompact
	if indent {
		mode = pyIndent2
	}
	var b bytes.Buffer
	if err := encodePy(&b, v, mode, 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func encodePy(b *bytes.Buffer, v any, mode, level int) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		writePyString(b, x)
	case json.Number:
		b.WriteString(string(x))
	case float64:
		b.WriteString(pyJSONFloat(x))
	case float32:
		b.WriteString(pyJSONFloat(float64(x)))
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		fmt.Fprint(b, x)
	case orderedObject:
		if rv := reflect.ValueOf(x); rv.IsNil() {
			b.WriteString("null")
			return nil
		}
		return encodeObject(b, x.Keys(), x.Value, mode, level)
	case []any:
		return encodeArray(b, len(x), func(i int) any { return x[i] }, mode, level)
	case json.RawMessage:
		p, err := ParseJSON(x)
		if err != nil {
			return err
		}
		return encodePy(b, p, mode, level)
	default:
		return encodeReflect(b, v, mode, level)
	}
	return nil
}

// encodeReflect handles slices, Go maps, pointers and anything else:
// structs go through encoding/json first; unknown kinds become str(o), as
// lm-eval's handle_non_serializable does.
func encodeReflect(b *bytes.Buffer, v any, mode, level int) error {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			b.WriteString("null")
			return nil
		}
		return encodePy(b, rv.Elem().Interface(), mode, level)
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			b.WriteString("[]")
			return nil
		}
		return encodeArray(b, rv.Len(), func(i int) any { return rv.Index(i).Interface() }, mode, level)
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			break
		}
		keys := make([]string, 0, rv.Len())
		for _, k := range rv.MapKeys() {
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		get := func(k string) any { return rv.MapIndex(reflect.ValueOf(k).Convert(rv.Type().Key())).Interface() }
		return encodeObject(b, keys, get, mode, level)
	case reflect.Struct:
		raw, err := json.Marshal(v)
		if err != nil {
			return err
		}
		return encodePy(b, json.RawMessage(raw), mode, level)
	case reflect.String:
		writePyString(b, rv.String())
		return nil
	}
	writePyString(b, fmt.Sprint(v))
	return nil
}

func newline(b *bytes.Buffer, mode, level int) {
	if mode == pyCompact {
		return
	}
	b.WriteByte('\n')
	b.WriteString(strings.Repeat(" ", mode*level))
}

func encodeObject(b *bytes.Buffer, keys []string, get func(string) any, mode, level int) error {
	if len(keys) == 0 {
		b.WriteString("{}")
		return nil
	}
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
			if mode == pyCompact {
				b.WriteByte(' ')
			}
		}
		newline(b, mode, level+1)
		writePyString(b, k)
		b.WriteString(": ")
		if err := encodePy(b, get(k), mode, level+1); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	newline(b, mode, level)
	b.WriteByte('}')
	return nil
}

func encodeArray(b *bytes.Buffer, n int, get func(int) any, mode, level int) error {
	if n == 0 {
		b.WriteString("[]")
		return nil
	}
	b.WriteByte('[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
			if mode == pyCompact {
				b.WriteByte(' ')
			}
		}
		newline(b, mode, level+1)
		if err := encodePy(b, get(i), mode, level+1); err != nil {
			return err
		}
	}
	newline(b, mode, level)
	b.WriteByte(']')
	return nil
}

// writePyString quotes s as Python's json module does with
// ensure_ascii=False: only \ " and control characters are escaped.
func writePyString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\f':
			b.WriteString(`\f`)
		case c < 0x20:
			fmt.Fprintf(b, `\u%04x`, c)
		default:
			_, size := utf8.DecodeRuneInString(s[i:])
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		i++
	}
	b.WriteByte('"')
}

// pyJSONFloat is how json.dumps writes a float: repr, with NaN and
// Infinity spelled as JavaScript does.
func pyJSONFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return Repr(f)
}

// Str returns Python's str(v) for the leaf values lm-eval writes into
// resps and filtered_resps: floats in repr, bools as True/False, None.
func Str(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return x
	case bool:
		if x {
			return "True"
		}
		return "False"
	case float64:
		return Repr(x)
	case float32:
		return Repr(float64(x))
	case json.Number:
		switch x { // read from Python's NaN, Infinity, -Infinity
		case "NaN":
			return "nan"
		case "Infinity":
			return "inf"
		case "-Infinity":
			return "-inf"
		}
		return string(x)
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		if r, err := ReprValue(v); err == nil { // str(list) is its repr
			return r
		}
	}
	return fmt.Sprint(v)
}

// Sanitize mirrors lm-eval's sanitize_list: nested slices keep their shape
// and every leaf becomes Str(leaf). lm-eval applies it to resps and
// filtered_resps before writing a samples line.
func Sanitize(v any) any {
	rv := reflect.ValueOf(v)
	if v != nil && (rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array) {
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = Sanitize(rv.Index(i).Interface())
		}
		return out
	}
	return Str(v)
}
