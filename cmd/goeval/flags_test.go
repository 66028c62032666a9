package main

import (
	"flag"
	"reflect"
	"testing"
)

func TestParseFlagsInterspersed(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		out     string
		wantPos []string
	}{
		{[]string{"-o", "x.svg", "a", "b"}, "x.svg", []string{"a", "b"}},
		{[]string{"a", "-o", "x.svg", "b"}, "x.svg", []string{"a", "b"}},
		{[]string{"a", "b", "--o=x.svg"}, "x.svg", []string{"a", "b"}},
		{[]string{"a", "--", "-o", "b"}, "def", []string{"a", "-o", "b"}},
		{[]string{}, "def", []string{}},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		out := fs.String("o", "def", "")
		if help, err := parseFlags(fs, tc.args); help || err != nil {
			t.Fatalf("%q: help=%v err=%v", tc.args, help, err)
		}
		if *out != tc.out || !reflect.DeepEqual(append([]string{}, fs.Args()...), tc.wantPos) {
			t.Errorf("%q: -o=%q args=%q, want %q %q", tc.args, *out, fs.Args(), tc.out, tc.wantPos)
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(new(nopWriter))
	if _, err := parseFlags(fs, []string{"a", "--nope"}); err == nil {
		t.Error("unknown flag after a positional argument was accepted")
	}
}

type nopWriter struct{}

func (*nopWriter) Write(p []byte) (int, error) { return len(p), nil }
