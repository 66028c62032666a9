package main

import (
	"bufio"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/internal/testutil/fixturemodel"
)

// TestGenerateCLIMatchesLlamaCpp pipes fixture prompts through `goeval
// generate` (greedy) and compares the ids with llama.cpp's.
func TestGenerateCLIMatchesLlamaCpp(t *testing.T) {
	dir := fixturemodel.Model(t, "tiny-llama")
	var in []string
	for _, l := range firstLines(t, testutil.Fixture(t, "tiny-llama", "generate.jsonl"), 3) {
		var g struct {
			IDs []int32 `json:"context_ids"`
		}
		if err := json.Unmarshal([]byte(l), &g); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(map[string][]int32{"prompt_ids": g.IDs})
		in = append(in, string(b))
	}
	refs := firstLines(t, testutil.Fixture(t, "tiny-llama", "reference_generate.jsonl"), 3)
	// tiny-llama's EOS (2) is not in these references, so EOS never ends them.
	stdout, stderr, code := goevalStdin(t, strings.Join(in, "\n")+"\n", "generate", "--model", dir, "--max-tokens", "16", "--batch-size", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sc := bufio.NewScanner(strings.NewReader(stdout))
	i := 0
	for ; sc.Scan(); i++ {
		var got struct {
			Text *string `json:"text"`
			IDs  []int32 `json:"ids"`
		}
		var ref struct {
			IDs []int32 `json:"generated_ids"`
		}
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil || got.Text == nil {
			t.Fatalf("line %d: %q: %v", i+1, sc.Text(), err)
		}
		if err := json.Unmarshal([]byte(refs[i]), &ref); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.IDs, ref.IDs) {
			t.Errorf("prompt %d: ids %v, llama.cpp %v", i, got.IDs, ref.IDs)
		}
	}
	if i != len(in) {
		t.Errorf("%d output lines for %d prompts", i, len(in))
	}
}

// TestGenerateCLIBadInput: a bad line is one error naming the line, exit 2.
func TestGenerateCLIBadInput(t *testing.T) {
	dir := fixturemodel.Model(t, "tiny-llama")
	for _, tc := range []struct{ stdin, want string }{
		{"{\"prompt_ids\": [1]}\n{\"prompt\": 3}\n", "stdin line 2: \"prompt\" must be a string, not a number"},
		{"{\"prompt_ids\": []}\n", "stdin line 1: \"prompt_ids\" must be a non-empty list"},
		{"{\"prompt\": \"a\", \"prompt_ids\": [1]}\n", "stdin line 1: want exactly one of"},
		{"\n{\"prompt_ids\": [1, 99999999]}\n", "stdin line 2: context_ids[1] = 99999999 is outside the vocabulary"},
	} {
		_, stderr, code := goevalStdin(t, tc.stdin, "generate", "--model", dir, "--max-tokens", "2")
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("stdin %q: exit %d, stderr %q; want exit 2 and %q", tc.stdin, code, stderr, tc.want)
		}
	}
}
