package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/jsonl"
)

// judgedFile is the judgements.jsonl of a goeval judge output folder (or
// the file itself), "" when path is not one.
func judgedFile(path string) string {
	if filepath.Base(path) == "judgements.jsonl" {
		return path
	}
	p := filepath.Join(path, "judgements.jsonl")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return ""
}

// judgedRow is either kind of goeval judge record.
type judgedRow struct {
	PromptID  string   `json:"prompt_id"`
	Question  string   `json:"question"`
	ModelA    string   `json:"model_a"`
	ModelB    string   `json:"model_b"`
	AnswerA   string   `json:"answer_a"`
	AnswerB   string   `json:"answer_b"`
	JudgeAB   string   `json:"judgement_a_first"`
	JudgeBA   string   `json:"judgement_b_first"`
	VerdictAB string   `json:"verdict_a_first"`
	VerdictBA string   `json:"verdict_b_first"`
	Winner    string   `json:"winner"`
	Model     string   `json:"model"`
	Answer    string   `json:"answer"`
	Judgement string   `json:"judgement"`
	Score     *float64 `json:"score"`
}

// showJudged prints up to n judged prompts side by side: the question,
// each answer, each verdict with the judge's explanation, the result.
func showJudged(w io.Writer, path string, n int) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return errs.BadInputf("%v", err)
	}
	shown := 0
	return jsonl.Lines(bytes.NewReader(data), func(i int, line []byte) error {
		if n > 0 && shown == n {
			return nil
		}
		var r judgedRow
		if err := json.Unmarshal(line, &r); err != nil {
			return errs.BadInputf("%s line %d: %v", path, i, err)
		}
		shown++
		fmt.Fprintf(w, "=== prompt %s\n%s\n", r.PromptID, indent(r.Question))
		if r.ModelA == "" { // a single-answer grade
			score := "no verdict"
			if r.Score != nil {
				score = fmt.Sprintf("%g", *r.Score)
			}
			fmt.Fprintf(w, "--- %s (grade %s)\n%s\n--- judge\n%s\n\n", r.Model, score, indent(r.Answer), indent(r.Judgement))
			return nil
		}
		fmt.Fprintf(w, "--- A: %s\n%s\n--- B: %s\n%s\n", r.ModelA, indent(r.AnswerA), r.ModelB, indent(r.AnswerB))
		fmt.Fprintf(w, "--- judge, A shown first: %s\n%s\n--- judge, B shown first: %s\n%s\n", verdictName(r.VerdictAB), indent(r.JudgeAB), verdictName(r.VerdictBA), indent(r.JudgeBA))
		fmt.Fprintf(w, "=== result: %s\n\n", resultName(r))
		return nil
	})
}

func verdictName(v string) string {
	switch v {
	case "A", "B":
		return v + " better"
	case "tie":
		return "tie"
	}
	return "no verdict"
}

func resultName(r judgedRow) string {
	switch r.Winner {
	case "A":
		return r.ModelA + " wins"
	case "B":
		return r.ModelB + " wins"
	case "tie":
		if r.VerdictAB != r.VerdictBA {
			return "tie (the two orders disagree)"
		}
		return "tie"
	}
	return "no result (a judgement without a verdict)"
}
