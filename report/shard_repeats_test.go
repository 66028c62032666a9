package report

import (
	"reflect"
	"strings"
	"testing"

	"github.com/goeval/goeval"
	"github.com/goeval/goeval/tasks"
)

// TestLineResponsesRepeats: a repeated request's answers (lm-eval's
// repeats) are logged as one list and read back in order, the first also
// as the response's own text; a list of another length is refused.
func TestLineResponsesRepeats(t *testing.T) {
	inst := &tasks.Instance{DocID: 1, Requests: []tasks.Request{{Kind: tasks.ReqGenerate, Context: "Q:", Repeats: 3}}}
	answers := []tasks.Response{{Text: " a"}, {Text: " b"}, {Text: " a"}}
	logged := sampleLine(goeval.Sample{DocID: 1, Doc: tasks.Doc{}, Requests: inst.Requests, OutputType: tasks.GenerateUntil,
		Responses: []tasks.Response{{Text: " a", Repeats: answers}}, Filter: "none", FilteredResps: " a"})
	if want := [][]any{{" a", " b", " a"}}; !reflect.DeepEqual(logged.Resps, want) {
		t.Fatalf("resps logged %#v, want %#v", logged.Resps, want)
	}
	b, err := EncodeSampleLine(logged)
	if err != nil {
		t.Fatal(err)
	}
	line, err := parseSampleLine(b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := lineResponses(&line, inst)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Text != " a" || !reflect.DeepEqual(got[0].Repeats, answers) {
		t.Fatalf("read back %+v, want the 3 answers", got[0])
	}
	short := *inst
	short.Requests = []tasks.Request{{Kind: tasks.ReqGenerate, Context: "Q:", Repeats: 2}}
	if _, err := lineResponses(&line, &short); err == nil || !strings.Contains(err.Error(), "list of 2 answers") {
		t.Fatalf("3 answers read for repeats 2: %v", err)
	}
}
