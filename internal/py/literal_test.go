package py

import (
	"reflect"
	"testing"
)

// TestSplitTopLevelAndCLIValue checks lm-eval's CLI key=value syntax: commas
// inside brackets and quotes do not split, and values are typed as
// handle_cli_value_string types them ("-3" is a float there: not isnumeric).
func TestSplitTopLevelAndCLIValue(t *testing.T) {
	got := SplitTopLevel(`max_new_tokens=12,until=["e"," the","\n"],,x='a,b'`)
	want := []string{"max_new_tokens=12", `until=["e"," the","\n"]`, "x='a,b'"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SplitTopLevel = %q, want %q", got, want)
	}
	cases := []struct {
		in   string
		want any
	}{
		{"12", 12}, {"-3", -3.0}, {"0.5", 0.5}, {"1e3", 1000.0}, {"TRUE", true}, {"false", false},
		{`["e"," the","\n"]`, []any{"e", " the", "\n"}}, {"('a', 1)", []any{"a", 1}}, {"None", nil},
		{`'it\'s'`, "it's"}, {`"\x41\u00e9"`, "Aé"}, {"auto", "auto"}, {"cuda:0", "cuda:0"}, {"[1,", "[1,"},
	}
	for _, c := range cases {
		if got := CLIValue(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("CLIValue(%q) = %#v, want %#v", c.in, got, c.want)
		}
	}
	d, err := LiteralEval(`{"a": [1, 2.5], 'b': None}`)
	if err != nil {
		t.Fatal(err)
	}
	m := d.(*Map[any])
	if a, _ := m.Get("a"); !reflect.DeepEqual(a, []any{1, 2.5}) || m.Len() != 2 {
		t.Errorf("dict literal: %v", m.Keys())
	}
	for _, bad := range []string{`"open`, "[1 2]", "{1: 2}", "foo", "1)"} {
		if _, err := LiteralEval(bad); err == nil {
			t.Errorf("LiteralEval(%q): no error", bad)
		}
	}
}
