package report

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

func renderFixtureHTML(t *testing.T, paths ...string) []byte {
	t.Helper()
	runs, err := LoadAll(paths)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare(runs, CompareOptions{Seed: 1, BootstrapIters: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, runs, c, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
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
