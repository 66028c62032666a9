package tasks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/goeval/goeval/internal/env"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/jsonl"
)

// Dataset layouts read (the first that has files for the split wins).
//
// Roots, in order, for dataset path ORG/NAME and config CONFIG:
//
//	<data-dir>/ORG/NAME                          a Hugging Face dataset repo snapshot (goeval synth data writes this)
//	<data-dir>/NAME
//	Options.HubCache, else $HF_HUB_CACHE, else $HF_HOME/hub (default ~/.cache/huggingface/hub)
//	    /datasets--ORG--NAME/snapshots/<rev>     every snapshot, newest first
//
// Inside a root, CONFIG being the dataset_name ("default" when lm-eval has none):
//
//	CONFIG/<split>.jsonl, <split>.jsonl            jsonl, one JSON object per line
//	CONFIG/<split>-*.parquet                       repo snapshot (e.g. main/test-00000-of-00001.parquet)
//	CONFIG/<split>/*.parquet, CONFIG/partial-<split>/*.parquet   refs/convert/parquet layout
//	data/<split>-*.parquet, data/<split>/*.parquet   single-config repos (CONFIG "default" only)
//
// Several parquet shards are read in file-name order.

// dataset names an lm-eval dataset: dataset_path and dataset_name, and for
// task YAML files with dataset_kwargs.data_files the files per split
// (datafiles.go) and the task file's folder.
type dataset struct {
	Path, Name string
	Files      map[string][]string
	dir        string
	csv        csvOptions
}

func (d dataset) config() string {
	if d.Name == "" {
		return "default"
	}
	return d.Name
}

// dataLoc is where datasets are searched: Options.DataDir and
// Options.HubCache.
type dataLoc struct{ dir, hubCache string }

// dataLoc returns o's dataset folders.
func (o Options) dataLoc() dataLoc { return dataLoc{dir: o.DataDir, hubCache: o.HubCache} }

// hubDir is the hub cache searched for datasets: loc.hubCache, else
// $HF_HUB_CACHE, else $HF_HOME/hub (default ~/.cache/huggingface/hub).
func (loc dataLoc) hubDir() string {
	if loc.hubCache != "" {
		return loc.hubCache
	}
	hub := env.HFHubCache.Get()
	if hub == "" {
		home := env.HFHome.Get()
		if home == "" {
			if h, err := os.UserHomeDir(); err == nil {
				home = filepath.Join(h, ".cache", "huggingface")
			}
		}
		if home != "" {
			hub = filepath.Join(home, "hub")
		}
	}
	return hub
}

// roots lists the candidate repo roots for d.
func (d dataset) roots(loc dataLoc) []string {
	var out []string
	if loc.dir != "" {
		out = append(out, filepath.Join(loc.dir, filepath.FromSlash(d.Path)))
		if base := filepath.Base(d.Path); base != d.Path {
			out = append(out, filepath.Join(loc.dir, base))
		}
	}
	if hub := loc.hubDir(); hub != "" {
		snap := filepath.Join(hub, "datasets--"+strings.ReplaceAll(d.Path, "/", "--"), "snapshots")
		revs, _ := filepath.Glob(filepath.Join(snap, "*"))
		sort.Slice(revs, func(i, j int) bool { return modTime(revs[i]) > modTime(revs[j]) })
		if len(revs) == 0 {
			revs = []string{filepath.Join(snap, "<rev>")}
		}
		out = append(out, revs...)
	}
	return out
}

func modTime(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.ModTime().UnixNano()
}

// patterns lists the globs tried inside one root for split.
func (d dataset) patterns(root, split string) []string {
	c := filepath.Join(root, d.config())
	p := []string{
		filepath.Join(c, split+".jsonl"),
		filepath.Join(c, split+"-*.parquet"),
		filepath.Join(c, split, "*.parquet"),
		filepath.Join(c, "partial-"+split, "*.parquet"),
	}
	if d.config() == "default" {
		p = append(p, filepath.Join(root, split+".jsonl"),
			filepath.Join(root, "data", split+"-*.parquet"),
			filepath.Join(root, "data", split, "*.parquet"))
	}
	return p
}

// table is one loaded split: rows plus the column order (for logging docs
// in dataset order). keys maps a dotted path of nested structs ("" for the
// top level) to its field order.
type table struct {
	Rows []Doc
	Src  []string // per row: "FILE row N", for error messages
	Keys map[string][]string
}

// loadSplit finds and reads one split of d.
func loadSplit(loc dataLoc, d dataset, split string) (*table, error) {
	if d.Files != nil {
		return loadDataFiles(loc, d, split)
	}
	roots := d.roots(loc)
	for _, root := range roots {
		for _, pat := range d.patterns(root, split) {
			files, _ := filepath.Glob(pat)
			if len(files) == 0 {
				continue
			}
			sort.Strings(files)
			return readNonEmpty(files)
		}
	}
	var rel []string
	for _, p := range d.patterns("", split) {
		rel = append(rel, filepath.ToSlash(p))
	}
	return nil, errs.BadInputf("dataset %s (config %s) split %q not found; set --data-dir to a folder holding %s/ (write one with 'goeval synth data'); searched %s under each of: %s",
		d.Path, d.config(), split, d.Path, strings.Join(rel, ", "), strings.Join(roots, ", "))
}

// readNonEmpty is readFiles for a split, which must have rows.
func readNonEmpty(files []string) (*table, error) {
	t, err := readFiles(files)
	if err == nil && len(t.Rows) == 0 {
		return nil, errs.BadInputf("dataset %s has no rows", strings.Join(files, ", "))
	}
	return t, err
}

// readFiles reads the rows of every file, in order.
func readFiles(files []string) (*table, error) {
	out := &table{Keys: map[string][]string{}}
	for _, f := range files {
		var t *table
		var err error
		if strings.HasSuffix(f, ".jsonl") {
			t, err = readJSONL(f)
		} else {
			t, err = readParquet(f)
		}
		if err != nil {
			return nil, err
		}
		out.Rows = append(out.Rows, t.Rows...)
		for i := range t.Rows {
			out.Src = append(out.Src, fmt.Sprintf("%s row %d", f, i))
		}
		for k, v := range t.Keys {
			if _, ok := out.Keys[k]; !ok {
				out.Keys[k] = v
			}
		}
	}
	return out, nil
}

// readJSONL reads one JSON object per non-blank line. Numbers that are
// integers become int64, others float64.
func readJSONL(path string) (*table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errs.BadInputf("open %s: %w", path, err)
	}
	defer f.Close()
	return readJSONLines(f, path)
}

// readJSONLines reads JSON lines from r (path names it in errors).
func readJSONLines(r io.Reader, path string) (*table, error) {
	t := &table{Keys: map[string][]string{}}
	err := jsonl.Lines(r, func(line int, b []byte) error {
		keys, err := jsonKeyOrder(b)
		if err != nil {
			return errs.BadInputf("%s line %d: not a JSON object: %v", path, line, err)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var row map[string]any
		if err := dec.Decode(&row); err != nil {
			return errs.BadInputf("%s line %d: not a JSON object: %v", path, line, err)
		}
		t.Rows = append(t.Rows, normalizeJSON(row).(map[string]any))
		mergeKeys(t.Keys, keys)
		return nil
	})
	if err != nil && !errs.IsBadInput(err) {
		return nil, errs.BadInputf("%s: %w", path, err)
	}
	return t, err
}

func mergeKeys(dst, src map[string][]string) {
	for k, v := range src {
		if _, ok := dst[k]; !ok {
			dst[k] = v
		}
	}
}

// jsonKeyOrder returns the key order of every object in b, by dotted path.
func jsonKeyOrder(b []byte) (map[string][]string, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	out := map[string][]string{}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("line starts with %v, want {", tok)
	}
	return out, walkObject(dec, "", out)
}

func walkObject(dec *json.Decoder, path string, out map[string][]string) error {
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key := tok.(string)
		if _, seen := out[path]; !seen || !contains(out[path], key) {
			out[path] = append(out[path], key)
		}
		if err := walkValue(dec, joinPath(path, key), out); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
}

func walkValue(dec *json.Decoder, path string, out map[string][]string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		return walkObject(dec, path, out)
	case json.Delim('['):
		for dec.More() {
			if err := walkValue(dec, path, out); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	}
	return err
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// normalizeJSON turns json.Number into int64 or float64, recursively.
func normalizeJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeJSON(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeJSON(e)
		}
	}
	return v
}

// ReadRows reads the rows of JSON-lines (.jsonl) and parquet files, in
// order, with the readers the datasets use (for other tools' inputs, such
// as goeval judge's prompts).
func ReadRows(files ...string) ([]Doc, error) {
	t, err := readFiles(files)
	if err != nil {
		return nil, err
	}
	return t.Rows, nil
}
