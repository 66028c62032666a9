package lm

import "testing"

func TestFirstStop(t *testing.T) {
	for _, c := range []struct {
		text  string
		until []string
		want  int
	}{
		{"ab\n\ncd</s>", []string{"</s>", "\n\n"}, 2}, // the earliest wins, whatever the order
		{"xyzabc", []string{"abc", "zab"}, 2},         // overlapping: the first start
		{"abc", []string{""}, -1},                     // empty stops never match
		{"abc", nil, -1},
		{"x é y", []string{"é"}, 2},
	} {
		if got := FirstStop(c.text, c.until); got != c.want {
			t.Errorf("FirstStop(%q, %q) = %d, want %d", c.text, c.until, got, c.want)
		}
	}
}
