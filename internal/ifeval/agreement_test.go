package ifeval

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"testing"
)

type golden struct {
	Checks []struct {
		ID     string `json:"id"`
		Kwargs Kwargs `json:"kwargs"`
		Prompt string `json:"prompt"`
	} `json:"checks"`
	Responses []string `json:"responses"`
	Verdicts  []string `json:"verdicts"`
}

// TestAgreement checks every (instruction, kwargs, response) case of the
// golden parity/ifeval/golden.py writes from lm-eval's own checks: the
// strict and loose verdicts must be lm-eval's.
func TestAgreement(t *testing.T) {
	f, err := os.Open("testdata/agreement.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.NewDecoder(z).Decode(&g); err != nil {
		t.Fatal(err)
	}
	cases, bad := 0, 0
	for i, c := range g.Checks {
		for j, r := range g.Responses {
			cases++
			s, l, err := Check(c.ID, c.Kwargs, c.Prompt, r)
			if err != nil {
				t.Fatalf("%s %v: %v", c.ID, c.Kwargs, err)
			}
			want := g.Verdicts[i][j] - '0'
			got := byte(0)
			if s {
				got += 2
			}
			if l {
				got++
			}
			if got != want {
				bad++
				if bad <= 20 {
					t.Errorf("%s %v on %q: got strict,loose %d, lm-eval %d", c.ID, c.Kwargs, r, got, want)
				}
			}
		}
	}
	t.Logf("%d cases, %d disagree", cases, bad)
	if cases < 10000 {
		t.Errorf("only %d cases", cases)
	}
}
