package py

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode"
)

// ReprString is Python's repr(s): single quotes unless s holds a single
// quote and no double quote; backslash, the quote, \t \n \r escaped;
// other non-printable code points as \xhh, \uhhhh or \Uhhhhhhhh
// (printable as Go's unicode.IsPrint, which matches str.isprintable).
func ReprString(s string) string {
	q := byte('\'')
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x7f || unicode.IsPrint(r):
			b.WriteRune(r)
		case r <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// ReprValue is Python's repr(v) for the values documents and templates hold:
// strings, ints, floats, bools, None, lists and ordered maps. A plain Go
// map has no key order, so it is an error (Python prints a dict in
// insertion order, which a Go map does not keep).
func ReprValue(v any) (string, error) {
	var b strings.Builder
	if err := reprInto(&b, v); err != nil {
		return "", err
	}
	return b.String(), nil
}

// StrValue is Python's str(v): strings as they are, everything else as
// ReprValue.
func StrValue(v any) (string, error) {
	if n, ok := v.(json.Number); ok {
		return jsonNumberRepr(n), nil
	}
	if rv := reflect.ValueOf(v); v != nil && rv.Kind() == reflect.String {
		return rv.String(), nil
	}
	return ReprValue(v)
}

func reprInto(b *strings.Builder, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
		return nil
	case string:
		b.WriteString(ReprString(x))
		return nil
	case bool:
		b.WriteString(Str(x))
		return nil
	case float64:
		b.WriteString(Repr(x))
		return nil
	case float32:
		b.WriteString(Repr(float64(x)))
		return nil
	case json.Number:
		b.WriteString(jsonNumberRepr(x))
		return nil
	case *Map[any]:
		b.WriteByte('{')
		for i, k := range x.Keys() {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(ReprString(k) + ": ")
			if err := reprInto(b, x.Value(k)); err != nil {
				return err
			}
		}
		b.WriteByte('}')
		return nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(rv.Int(), 10))
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		b.WriteString(strconv.FormatUint(rv.Uint(), 10))
		return nil
	case reflect.String: // a named string type (gonja's PyString)
		b.WriteString(ReprString(rv.String()))
		return nil
	case reflect.Slice, reflect.Array:
		b.WriteByte('[')
		for i := 0; i < rv.Len(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			if err := reprInto(b, rv.Index(i).Interface()); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	case reflect.Map:
		return fmt.Errorf("cannot print a mapping (its key order is unknown here); print its fields")
	}
	return fmt.Errorf("cannot print a %T as Python would", v)
}

// jsonNumberRepr is repr of the number Python's json module reads from n:
// an int literal as an int, anything else (a point, an exponent, NaN,
// Infinity) as a float.
func jsonNumberRepr(n json.Number) string {
	if IsIntLiteral(n) {
		if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
			return strconv.FormatInt(i, 10)
		}
		return string(n) // beyond int64: Python's int keeps every digit
	}
	f, _ := ToFloat(n)
	return Repr(f)
}

// IsIntLiteral reports whether Python's json module reads n as an int (no
// point, exponent, NaN or Infinity), not a float.
func IsIntLiteral(n json.Number) bool { return !strings.ContainsAny(string(n), ".eEIN") }
