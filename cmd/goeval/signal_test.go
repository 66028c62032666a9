package main

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goeval/goeval/synth"
)

// TestRunSignalStatus interrupts a running `goeval run` (the test binary,
// on $PATH as goeval) with SIGINT and SIGTERM once its progress shows, and
// checks the exit status shells expect (130, 143) and the one-line message.
func TestRunSignalStatus(t *testing.T) {
	dir := t.TempDir()
	model, data := filepath.Join(dir, "m"), filepath.Join(dir, "d")
	if _, err := synth.Tokenizer(model, 300); err != nil {
		t.Fatal(err)
	}
	o := synth.ModelOptions{Arch: "qwen2", Hidden: 32, Layers: 1, Heads: 2, KVHeads: 1, Intermediate: 64,
		Vocab: 300, RopeTheta: 10000, MaxPositions: 2048, BOS: 1, EOS: 2, Seed: 1, DType: "f32", Shards: 1,
		TokenizerDir: model, Out: model}
	if err := synth.Model(o); err != nil {
		t.Fatal(err)
	}
	// Far more generations than run before the signal (a fast idle machine
	// finished 200 in 3 s), which is sent once the first progress line is out.
	if _, err := synth.Data("gsm8k", data, synth.DataOptions{N: 2000, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	for sig, want := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143} {
		cmd := exec.Command(goevalBin, "run", "--model", model, "--tasks", "gsm8k", "--data-dir", data)
		pipe, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		progress, done := make(chan struct{}), make(chan struct{})
		go func() { // reads stderr whole; says when the first progress line came
			defer close(done)
			sc, told := bufio.NewScanner(pipe), false
			for sc.Scan() {
				stderr.WriteString(sc.Text() + "\n")
				if strings.HasPrefix(sc.Text(), "progress: ") && !told {
					close(progress)
					told = true
				}
			}
		}()
		select {
		case <-progress:
		case <-time.After(60 * time.Second):
			t.Fatal("no progress line in 60 s")
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		<-done
		_ = cmd.Wait()
		if got := cmd.ProcessState.ExitCode(); got != want {
			t.Errorf("%v: exit %d, want %d; stderr %q", sig, got, want, stderr.String())
		}
		last := strings.TrimSpace(stderr.String())
		last = last[strings.LastIndex(last, "\n")+1:]
		if !strings.HasPrefix(last, "goeval run: stopped by ") {
			t.Errorf("%v: last stderr line %q, want \"goeval run: stopped by …\"", sig, last)
		}
	}
}
