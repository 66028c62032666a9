package charts

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/goeval/goeval/report"
)

// TestHTMLInChromium opens the HTML report in headless Chromium, fails on
// any console message and checks the screenshot. It runs only with
// GOEVAL_BROWSER_TEST=1 (make test-browser, which installs Debian's
// chromium first) and then fails, not skips, if Chromium is missing.
func TestHTMLInChromium(t *testing.T) {
	if os.Getenv("GOEVAL_BROWSER_TEST") != "1" {
		t.Skip("browser test not requested: set GOEVAL_BROWSER_TEST=1 (make test-browser)")
	}
	bin := findChromium()
	if bin == "" {
		t.Fatal("GOEVAL_BROWSER_TEST=1 but no chromium found on PATH; run scripts/install-chromium.sh")
	}
	dir := t.TempDir()
	// Control: the console capture must see an error from a page script,
	// or a clean report would prove nothing.
	probe := filepath.Join(dir, "probe.html")
	os.WriteFile(probe, []byte(`<html><body><script>console.error("goeval-probe")</script></body></html>`), 0o644)
	if logs, _ := runChromium(t, bin, dir, probe); !strings.Contains(strings.Join(logs, "\n"), "goeval-probe") {
		t.Fatalf("console capture does not work: the probe's console.error was not seen")
	}
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, renderFixtureHTML(t, tunedDir, baseDir), 0o644); err != nil {
		t.Fatal(err)
	}
	logs, shot := runChromium(t, bin, dir, page)
	for _, l := range logs {
		t.Errorf("console message from the report: %s", l)
	}
	checkScreenshot(t, shot)
	t.Run("60 tasks, 20 checkpoints", func(t *testing.T) { checkLargeReport(t, bin, dir) })
}

// checkLargeReport renders a report of 20 checkpoints × 60 tasks: no
// console message, no horizontal scroll (a probe script added to a copy of
// the page, which itself has no scripts, logs the widths), a screenshot
// with content.
func checkLargeReport(t *testing.T, bin, dir string) {
	var paths []string
	for i := range 20 {
		p := filepath.Join(dir, fmt.Sprintf("checkpoint-%d.json", (i+1)*500))
		writeSynthResults(t, p, 60, i)
		paths = append(paths, p)
	}
	runs, c := compareRuns(t, report.CompareOptions{BootstrapIters: 1}, paths...)
	html := renderHTML(t, runs, c)
	page := filepath.Join(dir, "large.html")
	os.WriteFile(page, html, 0o644)
	logs, shot := runChromium(t, bin, dir, page)
	for _, l := range logs {
		t.Errorf("console message from the 60-task report: %s", l)
	}
	checkScreenshot(t, shot)
	probe := strings.Replace(string(html), "</body>", `<script>console.log("goeval-scroll " + document.documentElement.scrollWidth + " " + document.documentElement.clientWidth)</script></body>`, 1)
	probePage := filepath.Join(dir, "large-probe.html")
	os.WriteFile(probePage, []byte(probe), 0o644)
	logs, _ = runChromium(t, bin, dir, probePage)
	re := regexp.MustCompile(`goeval-scroll (\d+) (\d+)`)
	found := false
	for _, l := range logs {
		if m := re.FindStringSubmatch(l); m != nil {
			found = true
			if m[1] != m[2] {
				t.Errorf("horizontal scroll: the page is %s px wide in a %s px window", m[1], m[2])
			}
		}
	}
	if !found {
		t.Errorf("the scroll probe logged nothing: %q", logs)
	}
}

// writeSynthResults writes a minimal lm-eval results file of n tasks whose
// accuracies drift with step.
func writeSynthResults(t *testing.T, path string, n, step int) {
	t.Helper()
	var parts []string
	for i := range n {
		v := 0.3 + 0.5*float64(i)/float64(n) + 0.01*float64(step%5)
		parts = append(parts, fmt.Sprintf(`"%s_%d": {"alias": "%s_%d", "acc,none": %g, "acc_stderr,none": 0.03, "acc_norm,none": %g, "acc_norm_stderr,none": 0.03}`,
			mmluLike[i%len(mmluLike)], i, mmluLike[i%len(mmluLike)], i, v, v+0.02))
	}
	body := `{"results": {` + strings.Join(parts, ", ") + `}}`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// runChromium loads page headless, returns its CONSOLE log lines and the
// screenshot path.
func runChromium(t *testing.T, bin, dir, page string) (console []string, shot string) {
	t.Helper()
	shot = strings.TrimSuffix(page, ".html") + ".png"
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--user-data-dir="+filepath.Join(dir, "profile-"+filepath.Base(page)),
		"--enable-logging=stderr", "--v=0", "--window-size=1280,2400",
		"--screenshot="+shot, "file://"+page)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, ":CONSOLE") {
			console = append(console, l)
		}
	}
	return console, shot
}

// checkScreenshot wants a full-size PNG that is not blank: many distinct
// colours (text, tables, the chart's bars).
func checkScreenshot(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 2400 {
		t.Errorf("screenshot size %v", b)
	}
	if n := distinctColours(img, 4); n < 50 {
		t.Errorf("screenshot looks blank: %d distinct colours", n)
	}
	if os.Getenv("GOEVAL_SCREENSHOT_OUT") != "" {
		data, _ := os.ReadFile(path)
		os.WriteFile(os.Getenv("GOEVAL_SCREENSHOT_OUT"), data, 0o644)
	}
}

func distinctColours(img image.Image, step int) int {
	seen := map[[3]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += step {
		for x := b.Min.X; x < b.Max.X; x += step {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
		}
	}
	return len(seen)
}
