package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/goeval/goeval/internal/py"
)

// DateID is lm-eval's date_id: datetime.isoformat() with ":" replaced by
// "-", e.g. "2026-08-21T10-56-54.123456" (no fraction when it is zero).
func DateID(ts time.Time) string {
	if ts.Nanosecond()/1000 == 0 {
		return ts.Format("2006-01-02T15-04-05")
	}
	return ts.Format("2006-01-02T15-04-05.000000")
}

var unsafeName = regexp.MustCompile(`["<>:/|\\?*\[\]]+`)

// SanitizeModelName is lm-eval's model_name_sanitized:
// re.sub(r"[\"<>:/|\\?*\[\]]+", "__", name).
func SanitizeModelName(name string) string { return unsafeName.ReplaceAllString(name, "__") }

// RunPaths returns where lm-eval writes a run's files for --output_path
// out: out/<model_name_sanitized>/results_<date_id>.json, or for out ending
// in ".json" out's stem plus "_<date_id>.json", samples beside it.
func RunPaths(out, modelSanitized, dateID string) (resultsPath, samplesDir string) {
	if strings.HasSuffix(out, ".json") {
		dir := filepath.Dir(out)
		stem := strings.TrimSuffix(filepath.Base(out), ".json")
		return filepath.Join(dir, stem+"_"+dateID+".json"), dir
	}
	dir := filepath.Join(out, modelSanitized)
	return filepath.Join(dir, "results_"+dateID+".json"), dir
}

// SamplesPath is the samples file of one task in samplesDir.
func SamplesPath(samplesDir, task, dateID string) string {
	return filepath.Join(samplesDir, "samples_"+task+"_"+dateID+".jsonl")
}

// WriteRun writes res and samples (task → lines, may be nil) the way
// `lm_eval --output_path dir --log_samples` does, and returns the results
// path. Missing sample hashes, task_hashes and model_name_sanitized are
// filled in (in copies; the arguments are not modified). Every file is
// written to a temporary name and renamed, samples first and results last,
// so a results file never exists next to half-written samples. Unlike
// lm-eval, samples files are created fresh rather than appended to.
func WriteRun(dir string, res *Results, samples map[string][]Sample, ts time.Time) (string, error) {
	if res == nil {
		return "", fmt.Errorf("write run: nil results")
	}
	r := *res
	if r.ModelNameSanitized == "" {
		r.ModelNameSanitized = SanitizeModelName(r.ModelName)
	}
	dateID := DateID(ts)
	resultsPath, samplesDir := RunPaths(dir, r.ModelNameSanitized, dateID)
	if err := os.MkdirAll(samplesDir, 0o755); err != nil {
		return "", fmt.Errorf("write run: %w", err)
	}
	tasks := sampleTaskOrder(&r, samples)
	hashes := py.Map[string]{}
	for _, k := range r.TaskHashes.Keys() {
		v, _ := r.TaskHashes.Get(k)
		hashes.Set(k, v)
	}
	for _, t := range tasks {
		filled, err := writeSamples(SamplesPath(samplesDir, t, dateID), samples[t])
		if err != nil {
			return "", fmt.Errorf("write samples of %s: %w", t, err)
		}
		if _, ok := hashes.Get(t); !ok {
			hashes.Set(t, TaskHash(filled))
		}
	}
	r.TaskHashes = hashes
	data, err := r.Encode()
	if err != nil {
		return "", fmt.Errorf("encode results: %w", err)
	}
	if err := WriteAtomic(resultsPath, data); err != nil {
		return "", err
	}
	return resultsPath, nil
}

// writeSamples writes one task's samples file and returns the lines with
// their hashes filled.
func writeSamples(path string, lines []Sample) ([]Sample, error) {
	filled := make([]Sample, len(lines))
	var b bytes.Buffer
	for i := range lines {
		filled[i] = lines[i]
		if err := filled[i].FillHashes(); err != nil {
			return nil, err
		}
		line, err := filled[i].EncodeLine()
		if err != nil {
			return nil, err
		}
		b.Write(line)
	}
	return filled, WriteAtomic(path, b.Bytes())
}

// WriteAtomic writes data to a temporary file in path's directory, syncs
// it and renames it over path.
func WriteAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp, 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, werr)
	}
	return nil
}

// sampleTaskOrder lists the tasks of samples in the order of "results" (as
// lm-eval orders task_hashes), then any others sorted.
func sampleTaskOrder(r *Results, samples map[string][]Sample) []string {
	var tasks, rest []string
	seen := map[string]bool{}
	for _, t := range r.Results.Keys() {
		if _, ok := samples[t]; ok {
			tasks = append(tasks, t)
			seen[t] = true
		}
	}
	for t := range samples {
		if !seen[t] {
			rest = append(rest, t)
		}
	}
	sort.Strings(rest)
	return append(tasks, rest...)
}
