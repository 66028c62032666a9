package tasks

import "path/filepath"

// DataFiles says which files of its Hugging Face dataset repository a
// built-in task reads: the repository (dataset_path) and glob patterns,
// relative to the repository root, for its evaluation split and its
// few-shot split, in every layout loadSplit reads (see data.go). A
// download step fetches the matching files into the hub cache, where
// loadSplit then finds them offline. Unknown names give Get's error.
func DataFiles(task string) (path string, patterns []string, err error) {
	s, ok := registry[task]
	if !ok {
		return "", nil, unknown(task)
	}
	splits := []string{s.evalSplit()}
	if fs := s.fewshotSource(); fs != "" && fs != splits[0] {
		splits = append(splits, fs)
	}
	for _, split := range splits {
		for _, p := range s.ds.patterns("", split) {
			patterns = append(patterns, filepath.ToSlash(p))
		}
	}
	return s.ds.Path, patterns, nil
}

// fewshotSource is the split few-shot examples come from when the task
// draws them from its dataset ("" when it has fixed samples); newSampler
// makes the same choice.
func (s *spec) fewshotSource() string {
	switch {
	case s.fewshotSplit != "":
		return s.fewshotSplit
	case s.samples != nil:
		return ""
	case s.trainSplit != "":
		return s.trainSplit
	case s.valSplit != "":
		return s.valSplit
	}
	return s.testSplit
}
