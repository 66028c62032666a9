package judge

import (
	"context"
	"fmt"

	"github.com/goeval/goeval/lm"
)

// Config is how the judge is asked.
type Config struct {
	Template  Template
	Render    func([]lm.ChatMessage) (string, error) // the judge LM's conversation rendering
	MaxTokens int                                    // judge output tokens (default 512)
	Seed      uint64
}

// PairRecord is one prompt judged for one pair: model A (a candidate)
// against model B (the baseline), in both orders.
type PairRecord struct {
	PromptID   string `json:"prompt_id"`
	Question   string `json:"question"`
	ModelA     string `json:"model_a"`
	ModelB     string `json:"model_b"`
	AnswerA    string `json:"answer_a"`
	AnswerB    string `json:"answer_b"`
	JudgeAB    string `json:"judgement_a_first"` // the judge's text with A shown first
	JudgeBA    string `json:"judgement_b_first"` // … and with B shown first
	VerdictAB  string `json:"verdict_a_first"`   // "A", "B", "tie" or "" (unreadable), in the A/B frame
	VerdictBA  string `json:"verdict_b_first"`
	Winner     string `json:"winner"` // both orders agree: that; they disagree: "tie"; either unreadable: ""
	Consistent bool   `json:"position_consistent"`
}

// ScoreRecord is one answer graded alone.
type ScoreRecord struct {
	PromptID  string   `json:"prompt_id"`
	Question  string   `json:"question"`
	Model     string   `json:"model"`
	Answer    string   `json:"answer"`
	Judgement string   `json:"judgement"`
	Score     *float64 `json:"score"` // null when unreadable
}

func (c Config) request(user string) (lm.GenerateRequest, error) {
	ctx, err := c.Render([]lm.ChatMessage{{Role: "system", Content: c.Template.System}, {Role: "user", Content: user}})
	if err != nil {
		return lm.GenerateRequest{}, err
	}
	n := c.MaxTokens
	if n <= 0 {
		n = 512
	}
	return lm.GenerateRequest{Context: ctx, MaxTokens: n, Seed: c.Seed}, nil
}

// Pairwise judges every candidate (names[1:]) against the baseline
// (names[0]) on every prompt, each pair twice with the answers' order
// swapped; answers[m][p] is model m's answer to prompt p. All judge
// requests go in one LM call.
func Pairwise(ctx context.Context, judge lm.LM, c Config, prompts []Prompt, names []string, answers [][]string) ([]PairRecord, error) {
	var recs []PairRecord
	var reqs []lm.GenerateRequest
	for m := 1; m < len(names); m++ {
		for p, q := range prompts {
			r := PairRecord{PromptID: q.ID, Question: q.Text, ModelA: names[m], ModelB: names[0], AnswerA: answers[m][p], AnswerB: answers[0][p]}
			ab, err := c.request(c.Template.Fill(q.Text, r.AnswerA, r.AnswerB))
			if err != nil {
				return nil, err
			}
			ba, err := c.request(c.Template.Fill(q.Text, r.AnswerB, r.AnswerA))
			if err != nil {
				return nil, err
			}
			recs, reqs = append(recs, r), append(reqs, ab, ba)
		}
	}
	res, err := judge.GenerateUntil(ctx, reqs)
	if err != nil {
		return nil, fmt.Errorf("judge: %w", err)
	}
	for i := range recs {
		r := &recs[i]
		r.JudgeAB, r.JudgeBA = res[2*i].Text, res[2*i+1].Text
		r.VerdictAB, r.VerdictBA = ParsePairwise(r.JudgeAB), swap(ParsePairwise(r.JudgeBA))
		switch {
		case r.VerdictAB == "" || r.VerdictBA == "":
		case r.VerdictAB == r.VerdictBA:
			r.Winner, r.Consistent = r.VerdictAB, true
		default:
			r.Winner = "tie" // the judge preferred a position, not an answer
		}
	}
	return recs, nil
}

// swap turns a verdict given with B shown first back into the A/B frame.
func swap(v string) string {
	switch v {
	case "A":
		return "B"
	case "B":
		return "A"
	}
	return v
}

// Single grades every model's answer to every prompt 0–10.
func Single(ctx context.Context, judge lm.LM, c Config, prompts []Prompt, names []string, answers [][]string) ([]ScoreRecord, error) {
	var recs []ScoreRecord
	var reqs []lm.GenerateRequest
	for m, name := range names {
		for p, q := range prompts {
			req, err := c.request(c.Template.Fill(q.Text, answers[m][p], ""))
			if err != nil {
				return nil, err
			}
			recs = append(recs, ScoreRecord{PromptID: q.ID, Question: q.Text, Model: name, Answer: answers[m][p]})
			reqs = append(reqs, req)
		}
	}
	res, err := judge.GenerateUntil(ctx, reqs)
	if err != nil {
		return nil, fmt.Errorf("judge: %w", err)
	}
	for i := range recs {
		recs[i].Judgement = res[i].Text
		if v, ok := ParseScore(res[i].Text); ok {
			recs[i].Score = &v
		}
	}
	return recs, nil
}
