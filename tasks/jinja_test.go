package tasks

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/goeval/goeval/internal/py"
)

// TestJinjaGolden renders the templates of testdata/jinja/golden.json (lm-eval's
// own apply_template output, from parity/lmeval/jinja_golden.py) and requires the
// same text, the same error-or-not, and the same ast.literal_eval of the output.
func TestJinjaGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/jinja/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Doc   map[string]any
		Cases []struct {
			Template string
			Out      *string
			Error    string
			Literal  any
		}
	}
	dec := json.NewDecoder(bytesReader(data))
	dec.UseNumber()
	if err := dec.Decode(&g); err != nil {
		t.Fatal(err)
	}
	doc := normalizeJSON(g.Doc).(map[string]any)
	var raw struct{ Doc json.RawMessage }
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	order, err := jsonKeyOrder(raw.Doc) // the mappings' field order, as a dataset gives it
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) < 30 {
		t.Fatalf("%d cases", len(g.Cases))
	}
	for _, c := range g.Cases {
		got, err := renderJinja(c.Template, doc, order)
		if c.Error != "" {
			if err == nil {
				t.Errorf("%q: rendered %q, lm-eval raises %s", c.Template, got, c.Error)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.Template, err)
			continue
		}
		if got != *c.Out {
			t.Errorf("%q:\n got %q\nwant %q", c.Template, got, *c.Out)
			continue
		}
		if c.Literal != nil {
			lit, err := py.LiteralEval(got)
			if err != nil {
				t.Errorf("%q: literal_eval(%q): %v", c.Template, got, err)
				continue
			}
			if want := normalizeJSON(c.Literal); !reflect.DeepEqual(jsonish(lit), jsonish(want)) {
				t.Errorf("%q: literal_eval gives %#v, Python %#v", c.Template, lit, want)
			}
		}
	}
}

// jsonish maps ints to float64 so Python's and Go's literals compare.
func jsonish(v any) any {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case int:
		return float64(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonish(e)
		}
		return out
	case *py.Map[any]:
		out := map[string]any{}
		for _, k := range x.Keys() {
			out[k] = jsonish(x.Value(k))
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = jsonish(e)
		}
		return out
	}
	return v
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
