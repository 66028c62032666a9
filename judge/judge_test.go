package judge

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeval/goeval/lm"
)

// fakeJudge answers each judge request with pick(the user prompt).
type fakeJudge struct{ pick func(user string) string }

func (f fakeJudge) Loglikelihood(context.Context, []lm.LoglikelihoodRequest) ([]lm.LoglikelihoodResult, error) {
	return nil, nil
}
func (f fakeJudge) LoglikelihoodRolling(context.Context, []lm.RollingRequest) ([]lm.RollingResult, error) {
	return nil, nil
}
func (f fakeJudge) GenerateUntil(_ context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	out := make([]lm.GenerateResult, len(reqs))
	for i, r := range reqs {
		var msgs []lm.ChatMessage
		json.Unmarshal([]byte(r.Context), &msgs)
		out[i].Text = f.pick(msgs[len(msgs)-1].Content)
	}
	return out, nil
}

func renderJSON(msgs []lm.ChatMessage) (string, error) {
	b, err := json.Marshal(msgs)
	return string(b), err
}

// section is the text after header up to the next "[" header.
func section(prompt, header string) string {
	_, rest, _ := strings.Cut(prompt, header+"\n")
	body, _, _ := strings.Cut(rest, "\n\n[")
	return body
}

var (
	prompts = []Prompt{{ID: "p1", Text: "q1"}, {ID: "p2", Text: "q2"}, {ID: "p3", Text: "q3"}, {ID: "p4", Text: "q4"}}
	names   = []string{"base", "tuned"}
	answers = [][]string{{"short", "a longer base answer", "mid one", "x"}, {"a much longer answer", "tiny", "mid two!", "xy"}}
)

func config(t *testing.T, mode string) Config {
	tpl, err := LoadTemplate("", mode)
	if err != nil {
		t.Fatal(err)
	}
	return Config{Template: tpl, Render: renderJSON, Seed: 1}
}

// TestPositionBiasBecomesTies: a judge that always prefers whichever answer
// is shown first wins nothing for anyone once both orders are asked.
func TestPositionBiasBecomesTies(t *testing.T) {
	recs, err := Pairwise(context.Background(), fakeJudge{func(string) string { return "A is shown first.\n[[A]]" }}, config(t, "pairwise"), prompts, names, answers)
	if err != nil {
		t.Fatal(err)
	}
	s := SummarizePairs(recs, 1)[0]
	if s.Ties != 4 || s.Wins+s.Losses != 0 || s.WinRate != 0.5 || s.Consistency != 0 || s.FailureRate != 0 {
		t.Errorf("first-position judge: %+v, want 4 ties, win rate 0.5, consistency 0", s)
	}
	if recs[0].VerdictAB != "A" || recs[0].VerdictBA != "B" || recs[0].Winner != "tie" {
		t.Errorf("record %+v", recs[0])
	}
}

// TestConsistentJudge: a judge preferring the longer answer gives the same
// verdict in both orders: tuned wins 3 of 4 here.
func TestConsistentJudge(t *testing.T) {
	longer := func(p string) string {
		a, b := section(p, "[Assistant A's answer]"), section(p, "[Assistant B's answer]")
		switch {
		case len(a) > len(b):
			return "[[A]]"
		case len(b) > len(a):
			return "[[B]]"
		}
		return "[[C]]"
	}
	recs, err := Pairwise(context.Background(), fakeJudge{longer}, config(t, "pairwise"), prompts, names, answers)
	if err != nil {
		t.Fatal(err)
	}
	s := SummarizePairs(recs, 1)[0]
	if s.ModelA != "tuned" || s.ModelB != "base" || s.Wins != 3 || s.Losses != 1 || s.Consistency != 1 || s.WinRate != 0.75 {
		t.Errorf("summary %+v", s)
	}
	if !(s.Low <= s.WinRate && s.WinRate <= s.High && s.Low >= 0 && s.High <= 1 && s.High > s.Low) {
		t.Errorf("interval [%v, %v] around %v", s.Low, s.High, s.WinRate)
	}
	if again := SummarizePairs(recs, 1)[0]; again != s {
		t.Errorf("same seed, different summary: %+v vs %+v", again, s)
	}
	unread, _ := Pairwise(context.Background(), fakeJudge{func(string) string { return "no verdict" }}, config(t, "pairwise"), prompts, names, answers)
	if s := SummarizePairs(unread, 1)[0]; s.Unreadable != 4 || s.FailureRate != 1 {
		t.Errorf("unreadable judge: %+v", s)
	}
}

func TestSingleScores(t *testing.T) {
	score := func(p string) string {
		return "Rating: [[" + map[bool]string{true: "8", false: "5"}[strings.Contains(section(p, "[Assistant's answer]"), "long")] + "]]"
	}
	recs, err := Single(context.Background(), fakeJudge{score}, config(t, "single"), prompts, names, answers)
	if err != nil {
		t.Fatal(err)
	}
	ss := SummarizeScores(recs, 1)
	if ss[0].Model != "base" || ss[0].Mean != 5.75 || ss[1].Mean != 5.75 || ss[1].Paired != 4 || ss[1].Diff != 0 {
		t.Errorf("summaries %+v", ss)
	}
}

func TestParse(t *testing.T) {
	for in, want := range map[string]string{"[[A]]": "A", "x [[ B ]] y": "B", "[[A]] then [[C]]": "tie", "A": "", "[[D]]": ""} {
		if got := ParsePairwise(in); got != want {
			t.Errorf("ParsePairwise(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]float64{"Rating: [[7]]": 7, "[[3]] … [[9.5]]": 9.5, "[[11]]": -1, "7/10": -1} {
		got, ok := ParseScore(in)
		if (want < 0) == ok || (ok && got != want) {
			t.Errorf("ParseScore(%q) = %v %v, want %v", in, got, ok, want)
		}
	}
	if _, err := LoadTemplate(writeFile(t, "t.txt", "Judge {question} and {answer_a}"), "pairwise"); err == nil || !strings.Contains(err.Error(), "{answer_b}") {
		t.Errorf("template without {answer_b}: %v", err)
	}
}

func writeFile(t *testing.T, name, body string) string {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadPrompts: plain prompts and UltraChat rows (first user turn).
func TestLoadPrompts(t *testing.T) {
	p := writeFile(t, "p.jsonl", `{"prompt": "Why is the sky blue?"}
{"prompt_id": "u7", "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "Name a prime."}, {"role": "assistant", "content": "7"}]}
`)
	got, err := LoadPrompts(p, 0)
	if err != nil || len(got) != 2 || got[0] != (Prompt{"0", "Why is the sky blue?"}) || got[1] != (Prompt{"u7", "Name a prime."}) {
		t.Fatalf("LoadPrompts = %+v, %v", got, err)
	}
	if _, err := LoadPrompts(writeFile(t, "bad.jsonl", `{"text": "x"}`+"\n"), 0); err == nil || !strings.Contains(err.Error(), "row 1") {
		t.Errorf("row without a prompt: %v", err)
	}
}
