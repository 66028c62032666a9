package tasks

import (
	"bytes"
	"sort"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// PyYAML reads the escape `\/` in a double-quoted scalar as "/" (JSON's
// escape, which YAML 1.2 allows); yaml.v3 refuses it ("found unknown escape
// character"). lm-eval's turkishmmlu_cot files have it. For a file yaml.v3
// refuses for that reason, slashEscapes rewrites each `\/` inside a
// double-quoted scalar as `\x2F` (the same character), leaving `\/`
// everywhere else (plain, single-quoted and block scalars, comments) as
// written.

// slashEscapes returns data with the `\/` escapes of its double-quoted
// scalars rewritten, ok=false when there is nothing to rewrite.
func slashEscapes(data []byte) ([]byte, bool) {
	if !bytes.Contains(data, []byte(`\/`)) {
		return nil, false
	}
	// Positions first, from a copy yaml.v3 accepts: `\/` → `//` (same
	// length, so every scalar starts where it started; within a
	// double-quoted scalar a backslash pair is one escape, read left to
	// right).
	probe := bytes.Clone(data)
	for i := 0; i+1 < len(probe); i++ {
		if probe[i] == '\\' {
			if probe[i+1] == '/' {
				probe[i] = '/'
			}
			i++
		}
	}
	var doc yaml.Node
	if yaml.Unmarshal(probe, &doc) != nil {
		return nil, false
	}
	var starts []int // byte offsets of the opening quotes
	lines := lineStarts(data)
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.ScalarNode && n.Style&yaml.DoubleQuotedStyle != 0 {
			if off, ok := offsetOf(data, lines, n.Line, n.Column); ok && data[off] == '"' {
				starts = append(starts, off)
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&doc)
	sort.Ints(starts)
	var out strings.Builder
	last, changed := 0, false
	for _, s := range starts {
		if s < last {
			continue
		}
		i := s + 1
		for i < len(data) && data[i] != '"' {
			if data[i] == '\\' && i+1 < len(data) {
				if data[i+1] == '/' {
					out.Write(data[last:i])
					out.WriteString(`\x2F`)
					last, changed = i+2, true
				}
				i++
			}
			i++
		}
	}
	if !changed {
		return nil, false
	}
	out.Write(data[last:])
	return []byte(out.String()), true
}

// lineStarts are the byte offsets where each line begins.
func lineStarts(data []byte) []int {
	out := []int{0}
	for i, c := range data {
		if c == '\n' {
			out = append(out, i+1)
		}
	}
	return out
}

// offsetOf turns yaml.v3's 1-based line and column (counted in
// characters) into a byte offset.
func offsetOf(data []byte, lines []int, line, col int) (int, bool) {
	if line < 1 || line > len(lines) || col < 1 {
		return 0, false
	}
	off := lines[line-1]
	for c := 1; c < col; c++ {
		if off >= len(data) || data[off] == '\n' {
			return 0, false
		}
		_, w := utf8.DecodeRune(data[off:])
		off += w
	}
	return off, off < len(data)
}
