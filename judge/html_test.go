package judge

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriteHTML: the page shows the summary and every judged prompt with
// both answers and both judgements, escaped (answers are model output).
func TestWriteHTML(t *testing.T) {
	recs := []PairRecord{{PromptID: "p1", Question: "Why?", ModelA: "tuned", ModelB: "base", AnswerA: "<script>x</script>",
		AnswerB: "because", JudgeAB: "first [[A]]", JudgeBA: "first [[A]]", VerdictAB: "A", VerdictBA: "B", Winner: "tie"}}
	var b bytes.Buffer
	err := WriteHTML(&b, HTMLReport{Title: "t", Mode: "pairwise", Judge: "j", Models: []string{"base", "tuned"},
		Pairs: SummarizePairs(recs, 1), PairRecs: recs})
	if err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"&lt;script&gt;x&lt;/script&gt;", "because", "tie (the orders disagree)", "Judge, B shown first: B",
		"<td>tuned</td><td>base</td>", "0.500 [0.500, 0.500]"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>") {
		t.Error("an answer's markup reached the page unescaped")
	}
	v := 7.0
	b.Reset()
	srecs := []ScoreRecord{{PromptID: "p1", Question: "Why?", Model: "base", Answer: "a", Judgement: "Rating: [[7]]", Score: &v}}
	if err := WriteHTML(&b, HTMLReport{Mode: "single", Scores: SummarizeScores(srecs, 1), ScoreRec: srecs}); err != nil || !strings.Contains(b.String(), "grade 7") {
		t.Errorf("single page: %v\n%s", err, b.String())
	}
}
