package pyworker

import (
	"bytes"
	"math"
	"reflect"
	"testing"

	"github.com/goeval/goeval/internal/py"
)

// TestCodecRoundTrip: Decode(Marshal(v)) is v for every Go form of a
// Python value, and Marshal spells ints and floats apart.
func TestCodecRoundTrip(t *testing.T) {
	m := py.NewMap[any]()
	m.Set("z", int64(1))
	m.Set("a", []any{1.5, "x", nil, true})
	for _, v := range []any{nil, true, "s", int64(-3), 2.0, 1e-7, BigInt("123456789012345678901234"),
		Tuple{int64(1), Tuple{}}, Dict{{int64(1), "a"}, {nil, Set{"b"}}}, []byte("bytes"), m,
		NumPy{"<f8", 0.5}, NDArray{"int32", []int{2, 1}, []any{[]any{int64(1)}, []any{int64(2)}}}} {
		b, err := Marshal(v)
		if err != nil {
			t.Fatalf("%#v: %v", v, err)
		}
		got, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !reflect.DeepEqual(got, v) {
			t.Errorf("%s decoded as %#v, want %#v", b, got, v)
		}
	}
	for v, want := range map[any]string{1.0: "1.0", int64(1): "1", math.Inf(-1): `{"$float": "-inf"}`} {
		if b, _ := Marshal(v); string(b) != want {
			t.Errorf("%#v encoded as %s, want %s", v, b, want)
		}
	}
	one := py.NewMap[any]()
	one.Set("$x", int64(1)) // a real key that reads as a tag is sent as a $dict
	if b, _ := Marshal(one); string(b) != `{"$dict": [["$x", 1]]}` {
		t.Errorf("a $-key dict encoded as %s", b)
	}
	if _, err := Marshal(struct{}{}); err == nil {
		t.Error("a Go struct should not encode")
	}
}

// FuzzDecode: no input makes Decode panic, and what it decodes encodes
// to a fixed point (Marshal ∘ Decode is idempotent).
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`null`, `[1, 1.0, "a", true]`, `{"$tuple": [1, {"$float": "nan"}]}`,
		`{"$dict": [[1, 2], [null, {"$set": ["x"]}]]}`, `{"a": {"b": [1e400, -0.0]}}`, `{"$int": "-99999999999999999999"}`,
		`{"$np": ["<f8", 0.5]}`, `{"$ndarray": ["int64", [2], [1, 2]]}`, `{"$bytes": "AP8="}`, `{"$x": 1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode(data)
		if err != nil {
			return
		}
		b1, err := Marshal(v)
		if err != nil {
			t.Fatalf("decoded %#v does not encode: %v", v, err)
		}
		v2, err := Decode(b1)
		if err != nil {
			t.Fatalf("%s: own output does not decode: %v", b1, err)
		}
		b2, err := Marshal(v2)
		if err != nil || !bytes.Equal(b1, b2) {
			t.Fatalf("not a fixed point:\n%s\n%s (%v)", b1, b2, err)
		}
	})
}
