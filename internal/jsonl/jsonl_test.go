package jsonl

import (
	"errors"
	"strings"
	"testing"
)

// TestLines: blank and white-space lines are skipped but counted, a last
// line without a newline is read, lines longer than a bufio.Scanner's
// default token are whole.
func TestLines(t *testing.T) {
	long := `{"x": "` + strings.Repeat("a", 200000) + `"}`
	in := "{\"a\": 1}\n\n  \t\n{\"b\": 2}\r\n" + long
	var got []int
	var last []byte
	if err := Lines(strings.NewReader(in), func(n int, line []byte) error {
		got, last = append(got, n), line
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != 1 || got[1] != 4 || got[2] != 5 || string(last) != long {
		t.Errorf("lines %v (last %d bytes), want 1, 4, 5 (last %d bytes)", got, len(last), len(long))
	}
}

// TestDecode: a line that is not a T stops with a LineError naming it; an
// error of the callback comes back as it is.
func TestDecode(t *testing.T) {
	type row struct{ A int }
	var rows []row
	err := Decode(strings.NewReader("{\"A\": 1}\n{\"A\": \"x\"}\n{\"A\": 3}\n"), func(_ int, r row) error {
		rows = append(rows, r)
		return nil
	})
	var le *LineError
	if !errors.As(err, &le) || le.Line != 2 || len(rows) != 1 {
		t.Errorf("err %v, rows %v; want a LineError at line 2 after one row", err, rows)
	}
	stop := errors.New("stop")
	if err := Decode(strings.NewReader("{\"A\": 1}\n"), func(int, row) error { return stop }); err != stop {
		t.Errorf("callback error came back as %v", err)
	}
}
