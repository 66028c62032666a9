package tasks

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/goeval/goeval/internal/errs"
)

// Datasets named by files, as a task YAML's dataset_kwargs.data_files gives
// them to datasets.load_dataset: dataset_path json, csv, parquet or text
// with a file (or list, or split → file mapping). A file is found:
//
//	hf://datasets/ORG/NAME/PATH   under --data-dir as ORG/NAME/PATH, or in the hub cache snapshots
//	/absolute/path                as is
//	relative/path                 from the working directory (as datasets does), else from the
//	                              task file's folder
//
// Names may be globs. With any other dataset_path (a Hub dataset), relative
// names are looked up inside that dataset's folders (data.go's roots).

// isFileFormat reports whether dataset_path names a file format builder.
func isFileFormat(path string) bool {
	switch path {
	case "json", "csv", "parquet", "text":
		return true
	}
	return false
}

// loadDataFiles reads split from d.Files.
func loadDataFiles(loc dataLoc, d dataset, split string) (*table, error) {
	names, ok := d.Files[split]
	if !ok {
		var have []string
		for s := range d.Files {
			have = append(have, s)
		}
		sort.Strings(have)
		return nil, errs.BadInputf("dataset_kwargs.data_files has no split %q (it has %s): name the split's files there", split, strings.Join(have, ", "))
	}
	var files []string
	for _, n := range names {
		found, tried := d.findFile(loc, n)
		if len(found) == 0 {
			return nil, errs.BadInputf("data file %s (split %s) not found; looked at %s", n, split, strings.Join(tried, ", "))
		}
		files = append(files, found...)
	}
	out := &table{Keys: map[string][]string{}}
	for _, f := range files {
		t, err := readDataFile(d.Path, f, d.csv)
		if err != nil {
			return nil, err
		}
		for i := range t.Rows {
			out.Src = append(out.Src, fmt.Sprintf("%s row %d", f, i))
		}
		out.Rows = append(out.Rows, t.Rows...)
		mergeKeys(out.Keys, t.Keys)
	}
	if len(out.Rows) == 0 {
		return nil, errs.BadInputf("data files %s (split %s) have no rows", strings.Join(files, ", "), split)
	}
	return out, nil
}

// findFile resolves one data_files name to files (globs expanded, sorted)
// and lists the places tried.
func (d dataset) findFile(loc dataLoc, name string) (found, tried []string) {
	var cands []string
	switch {
	case strings.HasPrefix(name, "hf://datasets/"):
		rest := strings.TrimPrefix(name, "hf://datasets/")
		parts := strings.SplitN(rest, "/", 3)
		if len(parts) == 3 {
			repo := parts[0] + "/" + strings.SplitN(parts[1], "@", 2)[0]
			for _, root := range (dataset{Path: repo}).roots(loc) {
				cands = append(cands, filepath.Join(root, filepath.FromSlash(parts[2])))
			}
		}
	case filepath.IsAbs(name):
		cands = []string{name}
	case isFileFormat(d.Path):
		cands = []string{name, filepath.Join(d.dir, name)}
	default:
		for _, root := range d.roots(loc) {
			cands = append(cands, filepath.Join(root, filepath.FromSlash(name)))
		}
	}
	for _, c := range cands {
		m, _ := filepath.Glob(c)
		var files []string
		for _, f := range m {
			if st, err := os.Stat(f); err == nil && !st.IsDir() {
				files = append(files, f)
			}
		}
		if len(files) > 0 {
			sort.Strings(files)
			return files, nil
		}
		tried = append(tried, c)
	}
	return nil, tried
}

// csvOptions are dataset_kwargs.column_names and header for CSV files.
type csvOptions struct {
	names     []string
	headerSet bool // header given
	noHeader  bool // header: null
}

// hasHeader reports whether the file's first row is a header (pandas: yes,
// unless names are given without header, or header is null).
func (o csvOptions) hasHeader() bool {
	if o.headerSet {
		return !o.noHeader
	}
	return o.names == nil
}

// readDataFile reads one file by the dataset_path builder or, for Hub
// datasets, by its extension.
func readDataFile(builder, f string, csvOpts csvOptions) (*table, error) {
	kind := builder
	if !isFileFormat(kind) {
		switch strings.ToLower(filepath.Ext(f)) {
		case ".jsonl", ".json":
			kind = "json"
		case ".csv":
			kind = "csv"
		case ".txt":
			kind = "text"
		default:
			kind = "parquet"
		}
	}
	switch kind {
	case "json":
		return readJSONFile(f)
	case "csv":
		return readCSV(f, csvOpts)
	case "text":
		return readText(f)
	}
	return readParquet(f)
}

// readJSONFile reads JSON lines, or a JSON array of objects.
func readJSONFile(path string) (*table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, errs.BadInputf("open %s: %w", path, err)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '[' {
		return readJSONL(path)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(trimmed, &raw); err != nil {
		return nil, errs.BadInputf("%s: not a JSON array of objects: %v", path, err)
	}
	var lines bytes.Buffer
	for _, r := range raw {
		lines.Write(bytes.ReplaceAll(r, []byte("\n"), []byte(" ")))
		lines.WriteByte('\n')
	}
	return readJSONLines(&lines, path)
}

// readText reads one {"text": line} row per line, as datasets' text
// builder does (the line without its newline).
func readText(path string) (*table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errs.BadInputf("open %s: %w", path, err)
	}
	defer f.Close()
	t := &table{Keys: map[string][]string{"": {"text"}}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		t.Rows = append(t.Rows, Doc{"text": strings.TrimSuffix(sc.Text(), "\r")})
	}
	return t, sc.Err()
}

// readCSV reads a CSV file with a header row. Column types are inferred as
// pandas does for plain values: int64 when every cell is an integer,
// float64 when every cell is a number (empty cells: None), bool for
// True/False columns, else strings (empty cells: None).
func readCSV(path string, o csvOptions) (*table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errs.BadInputf("open %s: %w", path, err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, errs.BadInputf("%s: not valid CSV: %v", path, err)
	}
	if len(recs) == 0 && o.hasHeader() {
		return nil, errs.BadInputf("%s: empty CSV file (want a header row)", path)
	}
	head, body := o.names, recs
	if o.hasHeader() {
		body = recs[1:]
		if head == nil {
			head = recs[0]
		}
	}
	for i, rec := range body {
		if len(rec) != len(head) {
			return nil, errs.BadInputf("%s row %d: %d fields for %d columns", path, i, len(rec), len(head))
		}
	}
	t := &table{Keys: map[string][]string{"": head}}
	cols := make([]func(string) any, len(head))
	for j := range head {
		cols[j] = csvColumnType(body, j)
	}
	for _, rec := range body {
		d := Doc{}
		for j, h := range head {
			d[h] = cols[j](rec[j])
		}
		t.Rows = append(t.Rows, d)
	}
	return t, nil
}

func csvColumnType(rows [][]string, j int) func(string) any {
	isInt, isFloat, isBool, empty := true, true, true, false
	for _, r := range rows {
		c := r[j]
		if c == "" {
			empty = true
			continue
		}
		if _, err := strconv.ParseInt(c, 10, 64); err != nil {
			isInt = false
		}
		if _, err := strconv.ParseFloat(c, 64); err != nil {
			isFloat = false
		}
		if c != "True" && c != "False" && c != "true" && c != "false" {
			isBool = false
		}
	}
	switch {
	case isInt && !empty:
		return func(c string) any { n, _ := strconv.ParseInt(c, 10, 64); return n }
	case isFloat:
		return func(c string) any {
			if c == "" {
				return nil
			}
			x, _ := strconv.ParseFloat(c, 64)
			return x
		}
	case isBool && !empty:
		return func(c string) any { return c == "True" || c == "true" }
	}
	return func(c string) any {
		if c == "" {
			return nil
		}
		return c
	}
}
