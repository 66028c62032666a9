package py

import "testing"

// TestJSONValid checks json.loads' acceptance (expected values from
// CPython 3.11's json.loads).
func TestJSONValid(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"NaN", true}, {"-Infinity", true}, {"1e5", true}, {" 1 \n", true}, {"\t[]\r", true},
		{`{"a":1}`, true}, {`{"a" : [true, false, null]}`, true}, {`"\ud800"`, true},
		{"[1,]", false}, {"\"\x01\"", false}, {"01", false}, {"", false}, {"[1 2]", false},
		{"1.", false}, {".5", false}, {`"\x41"`, false},
	} {
		if got := JSONValid(c.in); got != c.want {
			t.Errorf("JSONValid(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}
