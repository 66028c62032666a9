package tasks_test

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/goeval/goeval/tasks"
)

// toyChat mirrors chat_template in parity/lmeval/dump_tasks.py.
type toyChat struct{}

func (toyChat) ChatTemplate() string { return "toy" }

func (toyChat) ApplyChatTemplate(msgs []tasks.ChatMessage, gen bool) (string, error) {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString("<|" + m.Role + "|>" + m.Content + "<|end|>")
	}
	if gen {
		b.WriteString("<|assistant|>")
	}
	return b.String(), nil
}

var variantRe = regexp.MustCompile(`^(.+)@(\d+)shot(\+chat)?(\+multiturn)?$`)

// TestLMEvalParityVariants: other shot counts (random sampler with the eval
// doc excluded, first_n) and the chat-template path, against lm-eval.
func TestLMEvalParityVariants(t *testing.T) {
	dir := synthData(t)
	files, _ := filepath.Glob("testdata/lmeval/variants/*.jsonl")
	if len(files) < 10 {
		t.Fatalf("only %d variant goldens", len(files))
	}
	for _, f := range files {
		vname := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(vname, func(t *testing.T) {
			m := variantRe.FindStringSubmatch(vname)
			if m == nil {
				t.Fatalf("bad variant name %q", vname)
			}
			_, want := readGolden(t, f)
			task, err := tasks.NewIndex().Get(m[1])
			if err != nil {
				t.Fatal(err)
			}
			opts := tasks.DefaultOptions()
			opts.DataDir = dir
			opts.NumFewshot, _ = strconv.Atoi(m[2])
			if m[3] != "" {
				opts.ApplyChatTemplate, opts.ChatTemplate = true, toyChat{}
				opts.SystemInstruction = "Be brief."
				opts.FewshotAsMultiturn = m[4] != ""
			}
			buildMatches(t, task, opts, want)
		})
	}
}
