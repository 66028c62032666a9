package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	goevalpkg "github.com/goeval/goeval"
)

// TestProgressPrinterLog drives the log (non-terminal) printer with a fake
// clock: nothing for stages without requests, a first line, at most one
// line per interval, one final line, nothing after it.
func TestProgressPrinterLog(t *testing.T) {
	var buf bytes.Buffer
	clock := time.Unix(0, 0)
	p := &progressPrinter{w: &buf, every: 30 * time.Second, now: func() time.Time { return clock }}
	step := func(d time.Duration, stage string, done, total int) {
		clock = clock.Add(d)
		p.report(goevalpkg.Progress{Stage: stage, Docs: 10, RequestsDone: done, RequestsTotal: total, Elapsed: clock.Sub(time.Unix(0, 0))})
	}
	step(0, "build", 0, 0) // no requests yet: nothing
	step(time.Second, "loglikelihood", 0, 100)
	step(10*time.Second, "loglikelihood", 20, 100) // within the interval: nothing
	step(25*time.Second, "loglikelihood", 50, 100) // 35 s after the first line
	step(5*time.Second, "loglikelihood", 60, 100)  // nothing
	step(5*time.Second, "generate_until", 100, 100)
	step(time.Second, "score", 100, 100) // after the final line: nothing
	p.finish()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want := []string{
		`^progress: loglikelihood 0/100 requests \(0\.0%\), 10 docs, 0 tok/s, elapsed 1s, ETA 0s$`,
		`^progress: loglikelihood 50/100 requests \(50\.0%\), 10 docs, 0 tok/s, elapsed 36s, ETA 0s$`,
		`^progress: generate_until 100/100 requests \(100\.0%\), 10 docs, 0 tok/s, elapsed 46s, done$`,
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), buf.String())
	}
	for i, re := range want {
		if !regexp.MustCompile(re).MatchString(lines[i]) {
			t.Errorf("line %d = %q, want match %s", i, lines[i], re)
		}
	}
}

// TestProgressPrinterTTY: a terminal gets one redrawn bar and a newline at
// the end.
func TestProgressPrinterTTY(t *testing.T) {
	var buf bytes.Buffer
	p := &progressPrinter{w: &buf, tty: true, every: time.Hour, now: time.Now}
	p.report(goevalpkg.Progress{Stage: "build"})
	p.report(goevalpkg.Progress{Stage: "loglikelihood", RequestsDone: 5, RequestsTotal: 10})
	p.report(goevalpkg.Progress{Stage: "loglikelihood", RequestsDone: 10, RequestsTotal: 10})
	p.finish()
	out := buf.String()
	if got := strings.Count(out, "\r"); got != 2 {
		t.Errorf("%d redraws, want 2: %q", got, out)
	}
	if !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 {
		t.Errorf("want exactly one final newline: %q", out)
	}
	if !strings.Contains(out, " 10/10 requests") || !strings.Contains(out, "100.0%") {
		t.Errorf("final bar missing: %q", out)
	}
}

func TestProgressInterval(t *testing.T) {
	for _, c := range []struct {
		env  string
		want time.Duration
		bad  bool
	}{{"", 30 * time.Second, false}, {"10s", 10 * time.Second, false}, {"2", 2 * time.Second, false},
		{"0.5", 500 * time.Millisecond, false}, {"0", 0, true}, {"-1s", 0, true}, {"soon", 0, true}} {
		t.Setenv(progressIntervalEnv.Name, c.env)
		got, err := progressInterval()
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("%q: got %v, %v; want %v, bad=%v", c.env, got, err, c.want, c.bad)
		}
	}
}

// TestRunProgressToFile runs goeval run with stderr redirected to a file,
// as under nohup or Slurm: exactly two progress lines (the requests start,
// they are done), no bar redraws, no empty stages.
func TestRunProgressToFile(t *testing.T) {
	dir := t.TempDir()
	for _, task := range []string{"arc_easy", "hellaswag"} {
		if _, stderr, code := goeval(t, "synth", "data", "--task", task, "--out", filepath.Join(dir, "data"), "--n", "12"); code != 0 {
			t.Fatalf("synth data: %s", stderr)
		}
	}
	logPath := filepath.Join(dir, "stderr.log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goevalBin, "run", "--model", "fake", "--tasks", "arc_easy,hellaswag", "--limit", "10", "--data-dir", filepath.Join(dir, "data"))
	cmd.Stderr = f
	if err := cmd.Run(); err != nil {
		t.Fatalf("run: %v", err)
	}
	f.Close()
	data, _ := os.ReadFile(logPath)
	log := string(data)
	if strings.ContainsAny(log, "\r\x1b") {
		t.Errorf("terminal control characters in a log file: %q", log)
	}
	re := regexp.MustCompile(`(?m)^progress: loglikelihood (\d+)/(\d+) requests \((\d+\.\d)%\), 20 docs, \d+ tok/s, elapsed \d+s, (ETA \d+s|done)$`)
	lines := re.FindAllStringSubmatch(log, -1)
	if len(lines) != 2 || strings.Count(log, "progress:") != 2 {
		t.Fatalf("want 2 progress lines, got:\n%s", log)
	}
	if lines[0][1] != "0" || lines[1][1] != lines[1][2] || lines[1][4] != "done" {
		t.Errorf("first line should start at 0, the last say done:\n%s", log)
	}
}
