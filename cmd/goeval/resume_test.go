package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/goeval/goeval/report"

	"github.com/goeval/goeval/internal/testutil/fixturemodel"
	"github.com/goeval/goeval/synth"
)

// resumeTasks are three loglikelihood tasks and one generate_until task.
var resumeTasks = []string{"arc_easy", "hellaswag", "piqa", "gsm8k"}

// resumeSetup writes a tiny model and synthetic data for resumeTasks.
func resumeSetup(t *testing.T, dir string) (model, data string) {
	t.Helper()
	model, data = filepath.Join(dir, "m"), filepath.Join(dir, "d")
	if _, err := synth.Tokenizer(model, 300); err != nil {
		t.Fatal(err)
	}
	o := synth.ModelOptions{Arch: "llama", Hidden: 32, Layers: 1, Heads: 2, KVHeads: 1, Intermediate: 64,
		Vocab: 300, RopeTheta: 10000, MaxPositions: 2048, Seed: 1, DType: "f32", Shards: 1,
		TokenizerDir: model, Out: model}
	if err := synth.Model(o); err != nil {
		t.Fatal(err)
	}
	for _, task := range resumeTasks {
		if _, err := synth.Data(task, data, synth.DataOptions{N: 40, Seed: 1}); err != nil {
			t.Fatal(err)
		}
	}
	return model, data
}

var (
	progressLineRE = regexp.MustCompile(`^progress: loglikelihood (\d+)/(\d+) requests`)
	engineLine     = regexp.MustCompile(`(?m)^engine: (\d+) forward passes`)
	cacheLine      = regexp.MustCompile(`(?m)^cache \S+: (\d+) of (\d+) requests reused, (\d+) computed$`)
)

// submatchInts returns re's integer groups in s, failing without a match.
func submatchInts(t *testing.T, re *regexp.Regexp, s string) []int {
	t.Helper()
	m := re.FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no line matching %s in stderr:\n%s", re, s)
	}
	out := make([]int, len(m)-1)
	for i, g := range m[1:] {
		out[i], _ = strconv.Atoi(g)
	}
	return out
}

// killMidRun starts goeval with args and SIGKILLs it once a progress line
// of the loglikelihood stage shows half the run's requests answered (so
// committed to the cache); it returns the stderr seen.
func killMidRun(t *testing.T, args []string) string {
	t.Helper()
	cmd := exec.Command(goevalBin, args...)
	cmd.Env = append(os.Environ(), progressChunkEnv+"=4")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var seen strings.Builder
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		seen.WriteString(sc.Text() + "\n")
		if m := progressLineRE.FindStringSubmatch(sc.Text()); m != nil {
			done, _ := strconv.Atoi(m[1])
			total, _ := strconv.Atoi(m[2])
			if done*2 >= total && done < total {
				if err := cmd.Process.Kill(); err != nil {
					t.Fatal(err)
				}
				break
			}
		}
	}
	_, _ = io.Copy(io.Discard, pipe)
	_ = cmd.Wait()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the run was not killed mid-way (state %v); stderr:\n%s", cmd.ProcessState, seen.String())
	}
	return seen.String()
}

// readRun reads the one results file (as JSON, without its wall-clock
// fields) and the samples files (task → bytes) of out/<model folder>.
func readRun(t *testing.T, dir string) (map[string]any, map[string]string) {
	t.Helper()
	res, _ := filepath.Glob(filepath.Join(dir, "results_*.json"))
	if len(res) != 1 {
		t.Fatalf("%s: %d results files, want 1", dir, len(res))
	}
	data, err := os.ReadFile(res[0])
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"date", "total_evaluation_time_seconds", report.TimingKey} { // wall clock, work done
		if _, ok := r[k]; !ok {
			t.Errorf("%s has no %q", res[0], k)
		}
		delete(r, k)
	}
	samples := map[string]string{}
	for _, task := range resumeTasks {
		files, _ := filepath.Glob(filepath.Join(dir, "samples_"+task+"_*.jsonl"))
		if len(files) != 1 {
			t.Fatalf("%s: %d samples files of %s, want 1", dir, len(files), task)
		}
		b, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		samples[task] = string(b)
	}
	return r, samples
}

// TestRunResume: a run with --use-cache killed (SIGKILL) mid-way and run
// again writes the same results and samples as an uninterrupted run,
// reusing the requests answered before the kill (fewer forward passes).
func TestRunResume(t *testing.T) {
	dir := t.TempDir()
	model, data := resumeSetup(t, dir)
	args := []string{"run", "--model", model, "--tasks", strings.Join(resumeTasks, ","), "--data-dir", data,
		"--limit", "24", "--num-fewshot", "0", "--gen-kwargs", "max_gen_toks=8", "--bootstrap-iters", "10", "--log-samples",
		"--batch-size", "8"} // a fixed batch: auto times decode batches, and the pass counts compared below would follow the timings
	fullOut, resOut, cache := filepath.Join(dir, "full"), filepath.Join(dir, "resumed"), filepath.Join(dir, "cache")

	_, stderr, code := goeval(t, append(args, "--output-path", fullOut)...)
	if code != 0 {
		t.Fatalf("uninterrupted run: exit %d: %s", code, stderr)
	}
	fullPasses := submatchInts(t, engineLine, stderr)[0]

	resumed := append(args, "--output-path", resOut, "--use-cache", cache)
	killMidRun(t, resumed)
	if left, _ := filepath.Glob(filepath.Join(resOut, "*", "results_*")); len(left) != 0 {
		t.Fatalf("the killed run wrote results: %v", left)
	}
	_, stderr, code = goeval(t, resumed...)
	if code != 0 {
		t.Fatalf("resumed run: exit %d: %s", code, stderr)
	}
	c := submatchInts(t, cacheLine, stderr)
	reused, total, computed := c[0], c[1], c[2]
	passes := submatchInts(t, engineLine, stderr)[0]
	t.Logf("uninterrupted: %d forward passes; resumed: %d of %d requests reused, %d computed, %d forward passes", fullPasses, reused, total, computed, passes)
	if reused*2 < total || computed == 0 || reused+computed != total {
		t.Errorf("resumed run reused %d and computed %d of %d requests; want ≥ half reused (answered before the kill) and some computed", reused, computed, total)
	}
	if passes >= fullPasses {
		t.Errorf("resumed run ran %d forward passes, the uninterrupted run %d: cached work was recomputed", passes, fullPasses)
	}
	wantRes, wantSamples := readRun(t, filepath.Join(fullOut, sanitizedDir(t, fullOut)))
	gotRes, gotSamples := readRun(t, filepath.Join(resOut, sanitizedDir(t, resOut)))
	if !reflect.DeepEqual(gotRes, wantRes) {
		a, _ := json.MarshalIndent(gotRes, "", " ")
		b, _ := json.MarshalIndent(wantRes, "", " ")
		t.Errorf("resumed results differ from the uninterrupted run's:\n%s", firstLineDiff(string(a), string(b)))
	}
	for task, want := range wantSamples {
		if gotSamples[task] != want {
			t.Errorf("samples of %s differ:\n%s", task, firstLineDiff(gotSamples[task], want))
		}
	}
}

// sanitizedDir is the one model folder under out.
func sanitizedDir(t *testing.T, out string) string {
	t.Helper()
	ents, err := os.ReadDir(out)
	if err != nil || len(ents) != 1 {
		t.Fatalf("%s: %d entries (err %v), want one model folder", out, len(ents), err)
	}
	return ents[0].Name()
}

// firstLineDiff shows the first differing line of a and b.
func firstLineDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return "line " + strconv.Itoa(i+1) + ":\n  got  " + la[i] + "\n  want " + lb[i]
		}
	}
	return "lengths " + strconv.Itoa(len(la)) + " and " + strconv.Itoa(len(lb))
}

// TestRunAdaptersSkipExisting: a base + adapter run with --output-path,
// run again, skips both models without evaluating (no engine line).
func TestRunAdaptersSkipExisting(t *testing.T) {
	tmp := t.TempDir()
	base, lora := fixturemodel.Model(t, fixturemodel.Base), fixturemodel.AdapterDir(t)
	data, out := filepath.Join(tmp, "data"), filepath.Join(tmp, "out")
	if _, err := synth.Data("arc_easy", data, synth.DataOptions{N: 10}); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "--model", base, "--adapter", lora, "--tasks", "arc_easy", "--data-dir", data,
		"--limit", "2", "--bootstrap-iters", "0", "--output-path", out}
	for pass, want := range []int{2, 0} {
		_, stderr, code := goeval(t, args...)
		if code != 0 {
			t.Fatalf("pass %d: exit %d: %s", pass, code, stderr)
		}
		written, skipped := strings.Count(stderr, "results written to"), strings.Count(stderr, "results exist")
		if written != want || skipped != 2-want || strings.Contains(stderr, "engine:") != (want > 0) {
			t.Errorf("pass %d: %d models written, %d skipped; want %d written, %d skipped:\n%s", pass, written, skipped, want, 2-want, stderr)
		}
	}
}
