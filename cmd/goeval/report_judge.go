package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/jsonl"
	"github.com/goeval/goeval/judge"
	"github.com/goeval/goeval/report"
)

// reportJudged writes the HTML page of a goeval judge output folder.
func reportJudged(dir, out, title string) error {
	var sum struct {
		Mode      string          `json:"mode"`
		Judge     string          `json:"judge_model"`
		Models    []string        `json:"models"`
		Summaries json.RawMessage `json:"summaries"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err == nil {
		err = json.Unmarshal(data, &sum)
	}
	if err != nil {
		return errs.BadInputf("%s: %v (a goeval judge output folder has summary.json)", dir, err)
	}
	r := judge.HTMLReport{Title: title, Mode: sum.Mode, Judge: sum.Judge, Models: sum.Models}
	lines, err := os.ReadFile(filepath.Join(dir, "judgements.jsonl"))
	if err != nil {
		return errs.BadInputf("%v", err)
	}
	if sum.Mode == "single" {
		err = decodeJudged(sum.Summaries, lines, &r.Scores, &r.ScoreRec)
	} else {
		err = decodeJudged(sum.Summaries, lines, &r.Pairs, &r.PairRecs)
	}
	if err != nil {
		return errs.BadInputf("%s: %v", dir, err)
	}
	var b bytes.Buffer
	if err := judge.WriteHTML(&b, r); err != nil {
		return err
	}
	if err := report.WriteAtomic(out, b.Bytes()); err != nil {
		return errs.BadInputf("write -o %s: %w", out, err)
	}
	fmt.Fprintf(os.Stderr, "goeval report: wrote %s (judged %s: %d summaries)\n", out, dir, max(len(r.Pairs), len(r.Scores)))
	return nil
}

// decodeJudged reads the summaries and the JSON lines of records.
func decodeJudged[S, R any](sums json.RawMessage, lines []byte, s *[]S, r *[]R) error {
	if err := json.Unmarshal(sums, s); err != nil {
		return fmt.Errorf("summary.json summaries: %v", err)
	}
	err := jsonl.Decode(bytes.NewReader(lines), func(_ int, rec R) error {
		*r = append(*r, rec)
		return nil
	})
	var le *jsonl.LineError
	if errors.As(err, &le) {
		return fmt.Errorf("judgements.jsonl line %d: %v", le.Line, le.Err)
	}
	return err
}
