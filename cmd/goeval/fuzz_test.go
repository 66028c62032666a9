package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/models/tokenizer"
)

// headLines returns the first n lines of a file (with their newlines).
func headLines(f *testing.F, path string, n int) []byte {
	f.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	return bytes.Join(lines[:min(n, len(lines))], nil)
}

// nonEmptyLines counts the lines readJSONLines decodes: internal/jsonl
// skips a line that is empty once its white space is trimmed.
func nonEmptyLines(data []byte) int {
	n := 0
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 {
			n++
		}
	}
	return n
}

// FuzzJSONLines feeds arbitrary stdin to the line decoders of goeval
// score, generate and tokenize: no panic, every error bad input, and
// accepted input gives one well-formed request (or output line) per
// non-empty line.
func FuzzJSONLines(f *testing.F) {
	f.Add(headLines(f, testutil.Fixture(f, "tiny-llama", "requests.jsonl"), 3))
	f.Add(headLines(f, testutil.Fixture(f, "tiny-qwen2", "generate.jsonl"), 3))
	f.Add(headLines(f, filepath.Join(testutil.Root(f), "models", "testdata", "hf", "llama", "requests.jsonl"), 3))
	f.Add([]byte("{\"context\": \"Question: 2+2?\\nAnswer:\", \"continuation\": \" 4\"}\r\n\n{\"text\": \"A long document.\"}\n"))
	f.Add([]byte("{\"prompt\": \"Once upon a time\"}\n{\"prompt_ids\": [1, 2, 3]}\n{\"text\": \"héllo <s>\"}"))
	f.Add([]byte("{\"context_ids\": [], \"continuation_ids\": [-1, 2147483648]}\n"))
	tok, err := tokenizer.Load(testutil.TokenizerDir(f, "llama2"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want := nonEmptyLines(data)
		reqs, err := readScoreRequests(bytes.NewReader(data))
		checkDecoded(t, "score", err, len(reqs), want)
		for _, r := range reqs {
			ids := r.ContextIDs != nil || r.ContinuationIDs != nil
			strs := r.Context != nil && r.Continuation != nil
			if n := btoi(r.Text != nil) + btoi(ids) + btoi(strs); n != 1 || ids && len(r.ContinuationIDs) == 0 {
				t.Fatalf("score accepted %+v", r)
			}
		}
		rows, err := readPrompts(bytes.NewReader(data))
		checkDecoded(t, "generate", err, len(rows), want)
		for _, r := range rows {
			if (r.Prompt == nil) == (len(r.PromptIDs) == 0) {
				t.Fatalf("generate accepted %+v", r)
			}
		}
		var out bytes.Buffer
		err = tokenizeStream(tok, true, bytes.NewReader(data), &out)
		lines := bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n"))
		if out.Len() == 0 {
			lines = nil
		}
		checkDecoded(t, "tokenize", err, len(lines), want)
		for _, l := range lines {
			var o tokenizeOut
			if err := json.Unmarshal(l, &o); err != nil || o.IDs == nil {
				t.Fatalf("tokenize wrote %q: %v", l, err)
			}
		}
	})
}

// checkDecoded asserts that err is bad input, or that got items came from
// want non-empty lines.
func checkDecoded(t *testing.T, cmd string, err error, got, want int) {
	t.Helper()
	if err != nil {
		if !errs.IsBadInput(err) {
			t.Fatalf("%s: error is not bad input: %v", cmd, err)
		}
		return
	}
	if got != want {
		t.Fatalf("%s: %d items from %d non-empty lines", cmd, got, want)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
