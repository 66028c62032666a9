package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/goeval/goeval/internal/py"
)

// RunWant describes a run about to start, in the terms its results file
// will record, so that an existing file of the same run can be found (a
// sweep then skips the model).
type RunWant struct {
	// Config is the run's "config" block (RunConfig); every key but
	// IgnoredConfigKeys must be equal in the file.
	Config *py.Map[any]
	// NShot is the effective num_fewshot of each task: the file's
	// "configs" must hold exactly these tasks and its "n-shot" these values.
	NShot map[string]int
	// Groups are the groups the run reports; "results" may hold only
	// tasks of NShot and these.
	Groups []string
	// Extra are top-level keys that must be equal in the file (nil: null
	// or absent). The PromptKeys and BackendKey are always compared,
	// absent ones as null.
	Extra map[string]any
}

// PromptKeys are the top-level keys of a results file that record prompt
// settings outside "config": a file written with a system instruction or a
// chat template is not a match for a run without one, and the reverse.
var PromptKeys = []string{"system_instruction", "fewshot_as_multiturn", "chat_template"}

// IgnoredConfigKeys are "config" keys that do not change a run's numbers.
// (model_num_parameters and model_dtype follow from the model and dtype,
// which are compared; the parameter count is not known before loading.)
var IgnoredConfigKeys = map[string]bool{"batch_size": true, "batch_sizes": true, "use_cache": true,
	"model_num_parameters": true, "model_dtype": true}

// FindRun returns the newest results file of modelName under out (where
// WriteRun would write it) that records want's settings; ok is false when
// there is none. Files that cannot be read are not matches.
func FindRun(out, modelName string, want RunWant) (path string, ok bool, err error) {
	paths, err := MatchingRuns(out, modelName, want)
	if err != nil || len(paths) == 0 {
		return "", false, err
	}
	return paths[len(paths)-1], true, nil
}

// MatchingRuns lists modelName's results files under out that record
// want's settings, oldest first (by date_id).
func MatchingRuns(out, modelName string, want RunWant) ([]string, error) {
	pattern, _ := RunPaths(out, SanitizeModelName(modelName), "*")
	paths, err := filepath.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("find results %s: %w", pattern, err)
	}
	sort.Slice(paths, func(i, j int) bool { return dateIDOf(paths[i]) < dateIDOf(paths[j]) })
	var match []string
	for _, p := range paths {
		res, err := ReadResults(p)
		if err != nil {
			continue // not a results file of ours: it never matches
		}
		if ok, err := want.matches(res); err != nil {
			return nil, fmt.Errorf("compare %s: %w", p, err)
		} else if ok {
			match = append(match, p)
		}
	}
	return match, nil
}

// matches tells whether res records want's settings.
func (w RunWant) matches(res *Results) (bool, error) {
	if w.Config != nil {
		for _, k := range w.Config.Keys() {
			if IgnoredConfigKeys[k] {
				continue
			}
			v, _ := w.Config.Get(k)
			got, _ := res.Config.Get(k)
			if eq, err := sameJSON(v, got); err != nil || !eq {
				return false, err
			}
		}
	}
	if res.Configs.Len() != len(w.NShot) {
		return false, nil
	}
	for task, n := range w.NShot {
		if _, ok := res.Configs.Get(task); !ok {
			return false, nil
		}
		got, _ := res.NShot.Get(task)
		if eq, err := sameJSON(n, got); err != nil || !eq {
			return false, err
		}
	}
	groups := map[string]bool{}
	for _, g := range w.Groups {
		groups[g] = true
	}
	for _, k := range res.Results.Keys() {
		if _, task := w.NShot[k]; !task && !groups[k] {
			return false, nil
		}
	}
	keys := append([]string{BackendKey}, PromptKeys...)
	for k := range w.Extra {
		keys = append(keys, k)
	}
	for _, k := range keys {
		v := w.Extra[k]
		got, _ := res.Extra.Get(k)
		if eq, err := sameJSON(v, got); err != nil || !eq {
			return false, err
		}
	}
	return true, nil
}

// sameJSON compares two values by their JSON spelling (a file's numbers
// are json.Number, a run's are Go numbers).
func sameJSON(a, b any) (bool, error) {
	ja, err := py.JSON(a, false)
	if err != nil {
		return false, err
	}
	jb, err := py.JSON(b, false)
	if err != nil {
		return false, err
	}
	return bytes.Equal(ja, jb), nil
}

// RemoveRun deletes a results file and the samples files written with it
// (same folder and date_id) and returns the paths removed.
func RemoveRun(resultsPath string) ([]string, error) {
	run, err := LoadRun(resultsPath)
	if err != nil {
		return nil, err
	}
	paths := []string{resultsPath}
	for _, task := range sortedKeys(run.SamplesPath) {
		paths = append(paths, run.SamplesPath[task])
	}
	var removed []string
	for _, p := range paths {
		if err := os.Remove(p); err != nil {
			return removed, fmt.Errorf("remove %s: %w", p, err)
		}
		removed = append(removed, p)
	}
	return removed, nil
}
