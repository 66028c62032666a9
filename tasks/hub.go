package tasks

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// DataFiles says which files of its Hugging Face dataset repository a
// task reads: the repository (dataset_path) and glob patterns,
// relative to the repository root, for its evaluation split and its
// few-shot split, in every layout loadSplit reads (see data.go). A
// download step fetches the matching files into the hub cache, where
// loadSplit then finds them offline. Unknown names give Get's error.
func (ix *Index) DataFiles(task string) (path string, patterns []string, err error) {
	s, err := ix.spec(task)
	if err != nil {
		return "", nil, err
	}
	if s.ds.Files != nil {
		return hubDataFiles(s.ds)
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
	case s.samples != nil, s.samplesFn != nil:
		return ""
	case s.trainSplit != "":
		return s.trainSplit
	case s.valSplit != "":
		return s.valSplit
	}
	return s.testSplit
}

// hubDataFiles are the Hub files of a task YAML's data_files
// (hf://datasets/ORG/NAME[@REV]/PATH; all in one repository); local files
// give an error, as there is nothing to fetch.
func hubDataFiles(d dataset) (path string, patterns []string, err error) {
	var splits []string
	for s := range d.Files {
		splits = append(splits, s)
	}
	sort.Strings(splits)
	for _, split := range splits {
		for _, f := range d.Files[split] {
			rest, ok := strings.CutPrefix(f, "hf://datasets/")
			parts := strings.SplitN(rest, "/", 3)
			if !ok || len(parts) != 3 {
				return "", nil, fmt.Errorf("data file %s is not on the Hub", f)
			}
			repo := parts[0] + "/" + strings.SplitN(parts[1], "@", 2)[0]
			if path != "" && repo != path {
				return "", nil, fmt.Errorf("data files come from two Hub repositories (%s, %s)", path, repo)
			}
			path = repo
			patterns = append(patterns, parts[2])
		}
	}
	return path, patterns, nil
}
