package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/internal/testutil/fixturemodel"
)

// goevalStdin runs the binary with stdin and returns stdout, stderr, status.
func goevalStdin(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(goevalBin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// firstLines returns the first n lines of a file.
func firstLines(t *testing.T, path string, n int) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	return lines[:min(n, len(lines))]
}

// TestScoreCLIMatchesLlamaCpp pipes fixture requests through `goeval score`.
func TestScoreCLIMatchesLlamaCpp(t *testing.T) {
	dir := fixturemodel.Model(t, "tiny-llama")
	in := firstLines(t, testutil.Fixture(t, "tiny-llama", "requests.jsonl"), 10)
	refs := firstLines(t, testutil.Fixture(t, "tiny-llama", "reference.jsonl"), 10)
	stdout, stderr, code := goevalStdin(t, strings.Join(in, "\n")+"\n", "score", "--model", dir, "--batch-size", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sc := bufio.NewScanner(strings.NewReader(stdout))
	i := 0
	for ; sc.Scan(); i++ {
		var got struct {
			LogProb  float64 `json:"logprob"`
			IsGreedy bool    `json:"is_greedy"`
			NTokens  int     `json:"n_tokens"`
		}
		var ref struct {
			LogProbSum   float64 `json:"logprob_sum"`
			IsGreedy     bool    `json:"is_greedy"`
			NContinuatin int     `json:"n_continuation"`
		}
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatalf("output line %d: %v", i+1, err)
		}
		if err := json.Unmarshal([]byte(refs[i]), &ref); err != nil {
			t.Fatal(err)
		}
		if math.Abs(got.LogProb-ref.LogProbSum) > 1e-4 || got.IsGreedy != ref.IsGreedy || got.NTokens != ref.NContinuatin {
			t.Errorf("line %d: got %+v, llama.cpp %+v", i+1, got, ref)
		}
	}
	if i != len(in) {
		t.Fatalf("%d output lines for %d requests", i, len(in))
	}
}

// TestScoreCLIBadInput: bad lines give one line naming the stdin line, exit 2.
func TestScoreCLIBadInput(t *testing.T) {
	dir := fixturemodel.Model(t, "tiny-llama")
	good := `{"context_ids":[1,2,3],"continuation_ids":[4]}`
	cases := map[string]struct{ stdin, want string }{
		"json":       {good + "\n{not json\n", "stdin line 2: invalid JSON"},
		"mixed":      {good + "\n" + `{"context_ids":[1],"text":"x"}` + "\n", "stdin line 2: want exactly one of"},
		"empty cont": {`{"context_ids":[1],"continuation_ids":[]}` + "\n", "stdin line 1: \"continuation_ids\" must be"},
		"vocab":      {good + "\n\n" + `{"context_ids":[1],"continuation_ids":[99999]}` + "\n", "stdin line 3: continuation_ids[0] = 99999 is outside the vocabulary"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			stdout, stderr, code := goevalStdin(t, c.stdin, "score", "--model", dir)
			if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || stdout != "" {
				t.Fatalf("exit %d, stderr %q, stdout %q; want exit 2 and one line containing %q", code, stderr, stdout, c.want)
			}
		})
	}
	if _, stderr, code := goevalStdin(t, good+"\n", "score", "--model", t.TempDir()); code != 2 || strings.Contains(stderr, "panic") {
		t.Fatalf("model dir without config: exit %d, %q", code, stderr)
	}
}
