package charts

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/goeval/goeval/report"
)

// baseDir and tunedDir are package report's fixtures: lm-eval's results
// and samples files of two runs on tiny tasks.
const (
	baseDir  = "../testdata/lmeval/fixture__base"
	tunedDir = "../testdata/lmeval/fixture__tuned"
)

// compareRuns loads the runs at paths (the first is the baseline) and
// compares them.
func compareRuns(t *testing.T, o report.CompareOptions, paths ...string) ([]*report.Run, *report.Comparison) {
	t.Helper()
	runs, err := report.LoadAll(paths)
	if err != nil {
		t.Fatal(err)
	}
	c, err := report.Compare(runs, o)
	if err != nil {
		t.Fatal(err)
	}
	return runs, c
}

// renderHTML is WriteHTML's page with the default options.
func renderHTML(t *testing.T, runs []*report.Run, c *report.Comparison) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteHTML(&b, runs, c, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func renderFixtureHTML(t *testing.T, paths ...string) []byte {
	t.Helper()
	runs, c := compareRuns(t, report.CompareOptions{Seed: 1, BootstrapIters: 1000}, paths...)
	return renderHTML(t, runs, c)
}

// The report compares tuned (baseline) against base, so the drop in
// accuracy is a significant regression with example docs.
func TestHTMLSelfContained(t *testing.T) {
	page := renderFixtureHTML(t, tunedDir, baseDir)
	if p := os.Getenv("GOEVAL_HTML_OUT"); p != "" {
		os.WriteFile(p, page, 0o644)
	}
	s := string(page)
	for _, want := range []string{"<svg", "Largest significant regressions", "tiny_mc acc,none", "[gold]", "[pick]", "WORSE*"} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(s, "<script") || strings.Contains(s, "<?xml") {
		t.Error("report has scripts or an XML prolog inside HTML")
	}
	// No external resources: no src/href pointing anywhere, no url(...) fetches.
	ext := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:|//)|url\(\s*["']?(https?:|//)|@import`)
	if m := ext.FindString(s); m != "" {
		t.Errorf("external reference %q", m)
	}
}
