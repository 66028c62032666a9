package mathverify

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

// The is_equiv golden (parity/minerva/golden.py): pairs of normalised
// minerva answers with lm-eval 0.4.13's is_equiv verdicts (sympy 1.14,
// antlr4 4.11.1). TestIsEquivCorpus fails below minIsEquivAgreement;
// -isequiv.report=FILE writes every disagreement there, -isequiv.golden=FILE
// runs another file of the same format
// (isequiv_disagreements.txt is that list with reasons added).

const minIsEquivAgreement = 0.999

var (
	isEquivReport = flag.String("isequiv.report", "", "write the is_equiv golden's disagreements to this file")
	isEquivGolden = flag.String("isequiv.golden", "testdata/isequiv.jsonl.gz", "the is_equiv golden to run")
)

type isEquivRow struct {
	A string `json:"a"`
	B string `json:"b"`
	V int    `json:"v"`
}

func readIsEquivGolden(t testing.TB) []isEquivRow {
	return readGoldenRows[isEquivRow](t, *isEquivGolden)
}

func TestIsEquivCorpus(t *testing.T) {
	rows := readIsEquivGolden(t)
	if len(rows) < 20000 && *isEquivGolden == "testdata/isequiv.jsonl.gz" {
		t.Fatalf("golden has %d pairs, want at least 20,000", len(rows))
	}
	var bad []string
	for _, r := range rows {
		if got := IsEquiv(r.A, r.B); got != (r.V == 1) {
			bad = append(bad, fmt.Sprintf("%d\t%q\t%q", r.V, r.A, r.B))
		}
	}
	agree := 1 - float64(len(bad))/float64(len(rows))
	t.Logf("is_equiv agreement: %d of %d pairs (%.3f%%)", len(rows)-len(bad), len(rows), 100*agree)
	if *isEquivReport != "" {
		if err := os.WriteFile(*isEquivReport, []byte(strings.Join(bad, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if agree < minIsEquivAgreement {
		for _, b := range bad[:min(len(bad), 30)] {
			t.Log(b)
		}
		t.Fatalf("agreement %.4f below %.4f", agree, minIsEquivAgreement)
	}
}
