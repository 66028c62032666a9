package tasks

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/goeval/goeval/internal/py"
)

// pyJSON renders v as Python's json.dumps(v, ensure_ascii=False) with
// default separators; map keys follow keys[path] (then sorted leftovers).
func pyJSON(b *strings.Builder, v any, keys map[string][]string, path string) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		pyQuote(b, x)
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(py.Repr(x))
	case []string:
		arr := make([]any, len(x))
		for i, s := range x {
			arr[i] = s
		}
		pyJSON(b, arr, keys, path)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			pyJSON(b, e, keys, path)
		}
		b.WriteByte(']')
	case map[string]any:
		order := orderedKeys(x, keys[path])
		b.WriteByte('{')
		for i, k := range order {
			if i > 0 {
				b.WriteString(", ")
			}
			pyQuote(b, k)
			b.WriteString(": ")
			pyJSON(b, x[k], keys, joinPath(path, k))
		}
		b.WriteByte('}')
	default:
		panic(fmt.Sprintf("pyJSON: %T", v))
	}
}

func orderedKeys(m map[string]any, order []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range order {
		if _, ok := m[k]; ok && !seen[k] {
			out = append(out, k)
			seen[k] = true
		}
	}
	var rest []string
	for k := range m {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

func pyQuote(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}
