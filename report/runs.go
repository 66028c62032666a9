package report

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/goeval/goeval/internal/errs"
)

// Run is one evaluation: a results file and the samples files written with
// it (same date_id, same folder).
type Run struct {
	Name        string            // model_name from the file, or the folder name
	ResultsPath string            // the results_<date_id>.json file
	Results     *Results          // its contents
	SamplesPath map[string]string // task → samples_<task>_<date_id>.jsonl (absent without --log_samples)
	samples     map[string][]Sample
}

// dateIDOf returns the date_id of a results file name: the text after the
// last "_" ("results_2026-08-21T10-56-54.1.json" → "2026-08-21T10-56-54.1").
func dateIDOf(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".json")
	if i := strings.LastIndex(base, "_"); i >= 0 {
		return base[i+1:]
	}
	return base
}

// LoadRun reads one results file and finds its samples files.
func LoadRun(resultsPath string) (*Run, error) {
	res, err := ReadResults(resultsPath)
	if err != nil {
		return nil, err
	}
	run := &Run{Name: res.ModelName, ResultsPath: resultsPath, Results: res,
		SamplesPath: map[string]string{}, samples: map[string][]Sample{}}
	if run.Name == "" {
		run.Name = filepath.Base(filepath.Dir(resultsPath))
	}
	date := dateIDOf(resultsPath)
	suffix := "_" + date + ".jsonl"
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(resultsPath), "samples_*"+suffix))
	for _, m := range matches {
		task := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(m), "samples_"), suffix)
		run.SamplesPath[task] = m
	}
	return run, nil
}

// LoadRuns resolves a command-line argument: a results .json file gives
// one run; a folder gives the newest results file (by date_id) of every
// folder under it that holds any, i.e. the newest run per model.
func LoadRuns(path string) ([]*Run, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, errs.BadInputf("%s: %w (want a results_*.json file or a run folder)", path, err)
	}
	if !st.IsDir() {
		r, err := LoadRun(path)
		if err != nil {
			return nil, err
		}
		return []*Run{r}, nil
	}
	newest := map[string]string{} // folder → results path
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isResultsName(d.Name()) {
			return err
		}
		dir := filepath.Dir(p)
		if old, ok := newest[dir]; !ok || dateIDOf(p) > dateIDOf(old) {
			newest[dir] = p
		}
		return nil
	})
	if err != nil {
		return nil, errs.BadInputf("scan %s: %w", path, err)
	}
	if len(newest) == 0 {
		return nil, errs.BadInputf("%s: no results_*.json file found in this folder or below", path)
	}
	dirs := make([]string, 0, len(newest))
	for d := range newest {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	var runs []*Run
	for _, d := range dirs {
		r, err := LoadRun(newest[d])
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

func isResultsName(name string) bool {
	return strings.HasPrefix(name, "results_") && strings.HasSuffix(name, ".json")
}

// LoadAll resolves several arguments in order (see LoadRuns).
func LoadAll(paths []string) ([]*Run, error) {
	var runs []*Run
	for _, p := range paths {
		rs, err := LoadRuns(p)
		if err != nil {
			return nil, err
		}
		runs = append(runs, rs...)
	}
	return runs, nil
}

// Samples returns the task's samples lines (read once and cached); nil
// when the run has no samples file for the task.
func (r *Run) Samples(task string) ([]Sample, error) {
	if s, ok := r.samples[task]; ok {
		return s, nil
	}
	p, ok := r.SamplesPath[task]
	if !ok {
		return nil, nil
	}
	s, err := ReadSamples(p)
	if err != nil {
		return nil, err
	}
	r.samples[task] = s
	return s, nil
}

// Label is a short display name: the model name, with the date when two
// runs would otherwise share a name.
func Label(runs []*Run, i int) string {
	name := runs[i].Name
	for j, o := range runs {
		if j != i && o.Name == name {
			return fmt.Sprintf("%s@%s", name, dateIDOf(runs[i].ResultsPath))
		}
	}
	return name
}
