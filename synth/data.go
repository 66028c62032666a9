package synth

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/goeval/goeval/tasks"
	"github.com/parquet-go/parquet-go"
)

// Synthetic datasets in the Hugging Face schema of each built-in task's
// dataset, written as a repo snapshot that the loader reads:
// OUT/ORG/NAME/CONFIG/<split>-00000-of-00001.parquet (CONFIG "default"
// → data/). Point --data-dir at OUT.

// DataOptions control synthetic data: N docs per split (few-shot needs at
// least 9 in a pool), Seed for the text.
type DataOptions struct {
	N    int
	Seed uint64
}

// dataGen draws deterministic varied text.
type dataGen struct{ r *rand.Rand }

var dataWords = []string{"the", "river", "Zoë", "café", "naïve", "über", "東京", "квант", "β-decay", "well-known",
	"don't", "it's", "rock 'n' roll", "(maybe)", "\"quoted\"", "x²", "3.14", "1,024", "$5", "50%", "e.g.", "mid—dash",
	"twenty", "apples", "Question", "answer", "a", "an", "of", "with", "¿qué?", "ünïcödé", "math", "run", "jumped", "over"}

func (g dataGen) word() string { return dataWords[g.r.IntN(len(dataWords))] }
func (g dataGen) words(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = g.word()
	}
	return strings.Join(w, " ")
}
func (g dataGen) sentence() string {
	r := []rune(g.words(3 + g.r.IntN(8)))
	s := strings.ToUpper(string(r[:1])) + string(r[1:])
	return s + []string{".", "?", "!", "…", ";"}[g.r.IntN(5)]
}
func (g dataGen) num() int { return g.r.IntN(2000) - 100 }

// dataSet is one dataset: its path, configs, splits and a row maker.
type dataSet struct {
	path    string // the Hugging Face repo, e.g. "openai/gsm8k"
	configs []string
	splits  []string
	write   func(g dataGen, config, split string, n int, path string) error
}

func writeDataRows[T any](path string, rows []T) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := parquet.NewGenericWriter[T](f)
	if _, err := w.Write(rows); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

func dataRowsOf[T any](n int, mk func(i int) T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = mk(i)
	}
	return out
}

// dataSetFor returns the generator of task's dataset, for task's config.
func dataSetFor(ix *tasks.Index, task string) (*dataSet, error) {
	path, config, err := ix.Dataset(task)
	if err != nil {
		return nil, err // a bad-input error naming the task
	}
	for _, set := range dataCatalog() {
		if set.path == path {
			cp := *set
			cp.configs = []string{config}
			return &cp, nil
		}
	}
	return nil, fmt.Errorf("no synthetic data for %s", task)
}

// Data writes the synthetic dataset of the built-in task under out and
// returns the files. task "all" writes every built-in task's data.
func Data(task, out string, o DataOptions) ([]string, error) {
	if o.N <= 0 {
		o.N = 30
	}
	ix := tasks.NewIndex()
	names := []string{task}
	if task == "all" {
		names = ix.List()
	}
	done := map[string]bool{}
	var files []string
	for _, name := range names {
		set, err := dataSetFor(ix, name)
		if err != nil {
			return nil, err
		}
		for _, cfg := range set.configs {
			for _, split := range set.splits {
				dir := cfg
				if cfg == "default" {
					dir = "data"
				}
				path := filepath.Join(out, filepath.FromSlash(set.path), dir, split+"-00000-of-00001.parquet")
				if done[path] {
					continue
				}
				done[path] = true
				seed := o.Seed ^ hashPath(set.path+"/"+cfg+"/"+split)
				g := dataGen{rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
				if err := set.write(g, cfg, split, o.N, path); err != nil {
					return nil, err
				}
				files = append(files, path)
			}
		}
	}
	sort.Strings(files)
	return files, nil
}

func hashPath(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}
