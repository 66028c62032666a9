package py

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Map is a JSON object that keeps its keys in insertion order, as Python
// dicts do. lm-eval's files depend on that order (results keys, doc columns,
// metric keys), so goeval reads and writes objects through Map rather than
// Go maps. The zero value is an empty map ready to use; always pass *Map.
type Map[V any] struct {
	keys []string
	m    map[string]V
}

// NewMap returns an empty Map.
func NewMap[V any]() *Map[V] { return &Map[V]{} }

// Set stores v under k. A new key goes last; an existing key keeps its place.
func (o *Map[V]) Set(k string, v V) {
	if o.m == nil {
		o.m = map[string]V{}
	}
	if _, ok := o.m[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.m[k] = v
}

// Get returns the value under k and whether it exists.
func (o *Map[V]) Get(k string) (V, bool) {
	if o == nil {
		var zero V
		return zero, false
	}
	v, ok := o.m[k]
	return v, ok
}

// Delete removes k, keeping the order of the other keys.
func (o *Map[V]) Delete(k string) {
	if o == nil {
		return
	}
	if _, ok := o.m[k]; !ok {
		return
	}
	delete(o.m, k)
	for i, kk := range o.keys {
		if kk == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

// Keys returns the keys in order. The caller must not modify the slice.
func (o *Map[V]) Keys() []string {
	if o == nil {
		return nil
	}
	return o.keys
}

// Len returns the number of keys.
func (o *Map[V]) Len() int {
	if o == nil {
		return 0
	}
	return len(o.keys)
}

// Value returns the value under k as an any (nil when missing), so code can
// walk a Map of any value type.
func (o *Map[V]) Value(k string) any { return o.m[k] }

// orderedObject is implemented by every *Map[V].
type orderedObject interface {
	Keys() []string
	Value(k string) any
}

// MarshalJSON writes the object compactly with keys in order.
func (o *Map[V]) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := encodePy(&b, o, pyCompact, 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// UnmarshalJSON reads an object, keeping key order. Values of type any
// become nil, bool, json.Number, string, []any or *Map[any]; Python's NaN,
// Infinity and -Infinity are read as json.Number (see quoteNonFinite).
func (o *Map[V]) UnmarshalJSON(data []byte) error {
	data = quoteNonFinite(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil { // JSON null: leave empty
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("expected a JSON object, found %v", tok)
	}
	*o = Map[V]{}
	var zero V
	_, isAny := any(&zero).(*any)
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		key := kt.(string)
		var v V
		if isAny {
			av, err := decodeValue(dec)
			if err != nil {
				return fmt.Errorf("key %q: %w", key, err)
			}
			if av != nil {
				v = av.(V)
			}
		} else {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return fmt.Errorf("key %q: %w", key, err)
			}
			if err := json.Unmarshal(raw, &v); err != nil {
				return fmt.Errorf("key %q: %w", key, err)
			}
		}
		o.Set(key, v)
	}
	_, err = dec.Token() // closing '}'
	return err
}

// decodeValue reads one JSON value from dec (which must use UseNumber),
// keeping object key order and the int/float spelling of numbers.
func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return unquoteNonFinite(tok), nil // nil, bool, json.Number, string
	}
	switch d {
	case '{':
		obj := NewMap[any]()
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			obj.Set(kt.(string), v)
		}
		_, err = dec.Token()
		return obj, err
	case '[':
		arr := []any{}
		for dec.More() {
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err = dec.Token()
		return arr, err
	}
	return nil, fmt.Errorf("unexpected JSON delimiter %v", d)
}

// ParseJSON decodes one JSON document into nil, bool, json.Number, string,
// []any or *Map[any], keeping key order. It also reads Python's NaN,
// Infinity and -Infinity (as json.Number), as Python's json.loads does.
func ParseJSON(data []byte) (any, error) {
	data = quoteNonFinite(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

// Float returns the value under k as a float64; ok is false when the key is
// missing or the value is not a number (lm-eval writes "N/A" stderrs).
func (o *Map[V]) Float(k string) (float64, bool) {
	v, ok := o.Get(k)
	if !ok {
		return 0, false
	}
	return ToFloat(any(v))
}
