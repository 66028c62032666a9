package mathverify

import (
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goeval/goeval/internal/jsonl"
)

// The corpus (parity/mathverify/golden.py): (gold, prediction) pairs with
// math-verify 0.9.0's verdicts. TestCorpusAgreement runs all of them and
// fails below minAgreement. Flags (go test ./metrics/mathverify -args ...):
// -mathverify.report=FILE writes every disagreement there
// (disagreements.txt is that list with reasons added);
// -mathverify.corpus=FILE runs another corpus of the same format.

const minAgreement = 0.999

var (
	reportFlag = flag.String("mathverify.report", "", "write the corpus disagreements to this file")
	corpusFlag = flag.String("mathverify.corpus", "", "run this corpus (same format) instead of testdata/corpus.jsonl.gz")
)

type corpusRow struct {
	C string `json:"c"`
	G string `json:"g"`
	P string `json:"p"`
	V int    `json:"v"`
}

func readCorpus(t testing.TB) []corpusRow {
	path := "testdata/corpus.jsonl.gz"
	if *corpusFlag != "" {
		path = *corpusFlag
	}
	return readGoldenRows[corpusRow](t, path)
}

// readGoldenRows reads a gzipped JSON-lines golden of parity/mathverify or
// parity/minerva: its first line is a header (reference versions, pairs
// left out), every other line one T.
func readGoldenRows[T any](t testing.TB, path string) []T {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var rows []T
	err = jsonl.Lines(gz, func(n int, line []byte) error {
		if n == 1 {
			return nil // the header
		}
		var r T
		if err := json.Unmarshal(line, &r); err != nil {
			return &jsonl.LineError{Line: n, Err: err}
		}
		rows = append(rows, r)
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// corpusConfig decodes "G|P|rounding|strict|setrel".
func corpusConfig(t testing.TB, c string) ([]Config, []Config, VerifyOptions) {
	parts := strings.Split(c, "|")
	if len(parts) != 5 {
		t.Fatalf("bad config %q", c)
	}
	targets := func(s string) []Config {
		var out []Config
		for _, ch := range s {
			switch ch {
			case 'L':
				out = append(out, DefaultLatexConfig())
			case 'B':
				l := DefaultLatexConfig()
				l.BoxedMatchPriority = 0
				out = append(out, l)
			case 'E':
				out = append(out, DefaultExprConfig())
			default:
				t.Fatalf("bad target %q in %q", ch, c)
			}
		}
		return out
	}
	r, err := strconv.Atoi(parts[2])
	if err != nil {
		t.Fatal(err)
	}
	return targets(parts[0]), targets(parts[1]), VerifyOptions{FloatRounding: r, Strict: parts[3] == "1", AllowSetRelationComp: parts[4] == "1"}
}

func corpusVerdict(t testing.TB, r corpusRow) (bool, []Answer, []Answer) {
	gc, pc, o := corpusConfig(t, r.C)
	g, p := Parse(r.G, gc), Parse(r.P, pc)
	return VerifyWith(g, p, o), g, p
}

func TestCorpusAgreement(t *testing.T) {
	rows := readCorpus(t)
	if len(rows) < 20000 && *corpusFlag == "" {
		t.Fatalf("corpus has %d pairs, want ≥ 20000", len(rows))
	}
	start := time.Now()
	// Rows are checked on all CPUs at once (Parse and Verify are safe for
	// concurrent use); the report keeps the corpus order.
	lines := make([]string, len(rows))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r := rows[i]
				if got, g, p := corpusVerdict(t, r); got != (r.V == 1) {
					lines[i] = fmt.Sprintf("#%d %s want %d\n  gold: %q\n  pred: %q\n  gold parsed: %v\n  pred parsed: %v\n",
						i, r.C, r.V, trunc(r.G), trunc(r.P), g, p)
				}
			}
		}()
	}
	for i := range rows {
		next <- i
	}
	close(next)
	wg.Wait()
	var report strings.Builder
	bad := 0
	for _, l := range lines {
		if l != "" {
			bad++
			report.WriteString(l)
		}
	}
	agree := 1 - float64(bad)/float64(len(rows))
	t.Logf("%d pairs, %d disagreements, agreement %.4f%%, %v", len(rows), bad, 100*agree, time.Since(start))
	if *reportFlag != "" {
		if err := os.WriteFile(*reportFlag, []byte(report.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if agree < minAgreement {
		t.Errorf("agreement %.4f%% below %.1f%%; disagreements:\n%s", 100*agree, 100*minAgreement, firstLines(report.String(), 200))
	}
}

func trunc(s string) string {
	if len(s) > 300 {
		return s[:150] + " … " + s[len(s)-150:]
	}
	return s
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
