package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/goeval/goeval/apimodel"
	"github.com/goeval/goeval/judge"
	"github.com/goeval/goeval/report"
)

// pairwise judges, writes the judgements and summary, prints the table.
func (f *judgeFlags) pairwise(ctx context.Context, j *apimodel.LM, cfg judge.Config, prompts []judge.Prompt, answers [][]string) error {
	recs, err := judge.Pairwise(ctx, j, cfg, prompts, f.models, answers)
	if err != nil {
		return err
	}
	sums := judge.SummarizePairs(recs, f.seed)
	if err := writeJudged(f.out, recs, f.summary(j, sums)); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "candidate\tvs baseline\twin\ttie\tloss\twin rate [95% CI]\tposition-consistent\tno verdict")
	for _, s := range sums {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%.3f [%.3f, %.3f]\t%.0f%%\t%.0f%%\n", s.ModelA, s.ModelB, s.Wins, s.Ties, s.Losses,
			s.WinRate, s.Low, s.High, 100*s.Consistency, 100*s.FailureRate)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return f.printUsage(j)
}

// single grades, writes and prints.
func (f *judgeFlags) single(ctx context.Context, j *apimodel.LM, cfg judge.Config, prompts []judge.Prompt, answers [][]string) error {
	recs, err := judge.Single(ctx, j, cfg, prompts, f.models, answers)
	if err != nil {
		return err
	}
	sums := judge.SummarizeScores(recs, f.seed)
	if err := writeJudged(f.out, recs, f.summary(j, sums)); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "model\tmean grade [95% CI]\tvs baseline [95% CI]\tgraded\tno verdict")
	for i, s := range sums {
		diff := "—"
		if i > 0 && s.Paired > 0 {
			diff = fmt.Sprintf("%+.2f [%+.2f, %+.2f]", s.Diff, s.DiffLow, s.DiffHigh)
		}
		fmt.Fprintf(tw, "%s\t%.2f [%.2f, %.2f]\t%s\t%d\t%d\n", s.Model, s.Mean, s.Low, s.High, diff, s.Graded, s.Unreadable)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return f.printUsage(j)
}

// judgeSummary is summary.json.
type judgeSummary struct {
	Mode             string   `json:"mode"`
	Judge            string   `json:"judge_model"`
	JudgeURL         string   `json:"judge_url"`
	Models           []string `json:"models"` // the first is the baseline
	Summaries        any      `json:"summaries"`
	PromptTokens     int64    `json:"judge_prompt_tokens"` // as the judge server reported them
	CompletionTokens int64    `json:"judge_completion_tokens"`
	CostUSD          float64  `json:"judge_estimated_cost_usd"` // at --judge-price-in/-out
}

func (f *judgeFlags) summary(j *apimodel.LM, sums any) judgeSummary {
	in, out := j.Usage()
	return judgeSummary{Mode: f.mode, Judge: f.judgeModel, JudgeURL: f.judgeURL, Models: f.models, Summaries: sums,
		PromptTokens: in, CompletionTokens: out, CostUSD: (float64(in)*f.priceIn + float64(out)*f.priceOut) / 1e6}
}

// printUsage prints the judge's token counts and cost estimate.
func (f *judgeFlags) printUsage(j *apimodel.LM) error {
	s := f.summary(j, nil)
	_, err := fmt.Printf("judge tokens: %d prompt + %d completion (as reported by the server); estimated cost $%.4f\n", s.PromptTokens, s.CompletionTokens, s.CostUSD)
	return err
}

// writeJudged writes judgements.jsonl and summary.json.
func writeJudged[R any](dir string, recs []R, sum judgeSummary) error {
	var b bytes.Buffer
	if err := writeJSONLines(&b, recs); err != nil {
		return err
	}
	if err := report.WriteAtomic(filepath.Join(dir, "judgements.jsonl"), b.Bytes()); err != nil {
		return err
	}
	data, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	return report.WriteAtomic(filepath.Join(dir, "summary.json"), append(data, '\n'))
}

// writeAnswers writes one line per prompt with every model's answer.
func writeAnswers(path string, prompts []judge.Prompt, models []string, answers [][]string) error {
	type row struct {
		PromptID string            `json:"prompt_id"`
		Prompt   string            `json:"prompt"`
		Answers  map[string]string `json:"answers"`
	}
	rows := make([]row, len(prompts))
	for i, p := range prompts {
		rows[i] = row{PromptID: p.ID, Prompt: p.Text, Answers: map[string]string{}}
		for m, name := range models {
			rows[i].Answers[name] = answers[m][i]
		}
	}
	var b bytes.Buffer
	if err := writeJSONLines(&b, rows); err != nil {
		return err
	}
	return report.WriteAtomic(path, b.Bytes())
}
