package py

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Python's json module writes float('nan') and ±float('inf') as the bare
// tokens NaN, Infinity and -Infinity (lm-eval's results and samples files
// hold them when a model's numerics break), and encoding/json rejects them.
// The readers here rewrite each such token outside a string into a string
// holding nonFinitePrefix + the token before decoding, and decodeValue turns
// it back into json.Number("NaN"), json.Number("Infinity") or
// json.Number("-Infinity"): ToFloat reads those as NaN and ±Inf (strconv
// accepts the spelling), and JSON writes them back unchanged.
const nonFinitePrefix = "\x00py-nonfinite:"

// quoteNonFinite returns data with every bare NaN, Infinity and -Infinity
// token replaced by its quoted stand-in; data is returned as is when it has
// none. Text inside strings is left alone.
func quoteNonFinite(data []byte) []byte {
	if !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) {
		return data
	}
	var out []byte
	last := 0
	inStr := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inStr {
			switch c {
			case '\\':
				i++
			case '"':
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
			continue
		}
		tok := nonFiniteAt(data[i:])
		if tok == "" {
			continue
		}
		out = append(out, data[last:i]...)
		q, _ := json.Marshal(nonFinitePrefix + tok)
		out = append(out, q...)
		i += len(tok) - 1
		last = i + 1
	}
	if out == nil {
		return data
	}
	return append(out, data[last:]...)
}

// nonFiniteAt returns the non-finite token b starts with, or "".
func nonFiniteAt(b []byte) string {
	for _, tok := range []string{"NaN", "Infinity", "-Infinity"} {
		if bytes.HasPrefix(b, []byte(tok)) {
			return tok
		}
	}
	return ""
}

// unquoteNonFinite maps a decoded string token back to the number it
// stands for; other values are returned unchanged.
func unquoteNonFinite(v any) any {
	if s, ok := v.(string); ok && strings.HasPrefix(s, nonFinitePrefix) {
		return json.Number(s[len(nonFinitePrefix):])
	}
	return v
}
