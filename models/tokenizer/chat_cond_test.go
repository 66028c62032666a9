package tokenizer

import "testing"

// TestConditionalExpressions renders conditional expressions gonja parses
// only through jinja.Conditionals (inside parentheses, call arguments,
// list and dict literals, subscripts, an if statement's condition; nested;
// without else; the branch not taken never evaluated) and ones it parses
// itself, with the text Jinja2 renders (transformers' chat-template
// environment, jinja2 3.x, computed once and written here).
func TestConditionalExpressions(t *testing.T) {
	for i, c := range []struct {
		src  string
		vars map[string]any
		want string
	}{
		{"{{ 'a' + (x if c else 'z') }}", map[string]any{"x": "", "c": true}, "a"},
		{"{{ 'a' + (x if c else 'z') }}", map[string]any{"x": "", "c": false}, "az"},
		{"{{ (1 if a else 2 if b else 3) }}|{{ (1 if b else 2 if a else 3) }}|{{ (1 if b else 2 if b else 3) }}", map[string]any{"a": true, "b": false}, "1|2|3"},
		{"[{{ ('x' if c) }}]", map[string]any{"c": false}, "[]"},
		{"{{ [1, 2, 3] | join(',' if c else ';') }}", map[string]any{"c": false}, "1;2;3"},
		{"{{ ['a' if c else 'b', 'c' if not c else 'd'] | join('-') }}", map[string]any{"c": true}, "a-d"},
		{"{{ {'k': 'v' if c else 'w', 'j' if c else 'i': 2}['k'] }}{{ {'k': 1, 'j' if c else 'i': 2}['i'] }}", map[string]any{"c": false}, "w2"},
		{"{{ ('ok' if c else raise_exception('boom')) }}", map[string]any{"c": true}, "ok"},
		{"{{ (raise_exception('boom') if c else 'fine') }}", map[string]any{"c": false}, "fine"},
		{"{%- if true -%}\n  <{{ (a if a else 'b') }}>\n  {%- endif %}\n", map[string]any{"a": ""}, "<b>"},
		{"{% for m in [1, 2, 3] if m > 1 %}{{ m }}{% endfor %}", map[string]any{}, "23"},
		{"{{ ['a', 'b'] | join(d='x' if c else 'y') }}", map[string]any{"c": false}, "ayb"},
		{"{{ items[0 if c else 1] }}", map[string]any{"items": []any{"p", "q"}, "c": false}, "q"},
		{"{% if (a if c else b) %}yes{% else %}no{% endif %}", map[string]any{"a": "", "b": "x", "c": true}, "no"},
		{"{{ ('' if true else 'no') }}|{{ (1 if c else 2) + 1 }}", map[string]any{"c": true}, "|2"},
		{"{{ ((x ~ '!') if (c and (x | length > 0)) else ('(' + 'empty' + ')')) | upper }}", map[string]any{"x": "hi", "c": true}, "HI!"},
		{"{% set y = ('s' if c else 't') %}{{ y }}{{ 'u' if c else 'v' }}", map[string]any{"c": false}, "tv"},
		{"{{ ('a' if c\n   else 'b') }}", map[string]any{"c": false}, "b"},
	} {
		got, err := RenderChatTemplate(c.src, nil, false, c.vars)
		if err != nil || got != c.want {
			t.Errorf("case %d %q: got %q, %v; want %q", i, c.src, got, err, c.want)
		}
	}
}
