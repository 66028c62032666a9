package tasks

import (
	"testing"

	"github.com/goeval/goeval/internal/py"
)

func TestOrderedDocKeepsColumnOrder(t *testing.T) {
	doc := map[string]any{"question": "q", "answerKey": "A", "choices": map[string]any{"text": []any{"x"}, "label": []any{"A"}},
		"extra": 1, "id": "7"}
	keys := map[string][]string{"": {"id", "question", "choices", "answerKey"}, "choices": {"text", "label"}}
	b, err := py.JSON(OrderedDoc(doc, keys), false)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id": "7", "question": "q", "choices": {"text": ["x"], "label": ["A"]}, "answerKey": "A", "extra": 1}`
	if string(b) != want {
		t.Errorf("OrderedDoc = %s, want %s", b, want)
	}
}

func TestLoggedGenKwargsOrder(t *testing.T) {
	q := Request{GenKwargs: map[string]any{"z": 1, "until": []string{"\n"}, "a": true, "do_sample": false},
		GenKeys: []string{"until", "do_sample"}}
	if got := q.LoggedGenKwargs().Keys(); len(got) != 4 || got[0] != "until" || got[1] != "do_sample" || got[2] != "a" || got[3] != "z" {
		t.Errorf("keys %v, want until do_sample a z", got)
	}
}
