package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/internal/errs"
)

// fixtureFiles are the lm-eval run fixtures' files matching pattern.
func fixtureFiles(f *testing.F, pattern string) []string {
	f.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "lmeval", "fixture__*", pattern))
	if err != nil || len(files) == 0 {
		f.Fatalf("no fixture files %s: %v", pattern, err)
	}
	return files
}

// FuzzResults reads arbitrary bytes as a results_*.json file, as compare,
// show, plot and report do: no panic, every error bad input, every metric
// lookup works, and an accepted file written back by Encode reads back to
// the same encoding.
func FuzzResults(f *testing.F) {
	for _, p := range fixtureFiles(f, "results_*.json") {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"results": {"t": {"acc,none": NaN, "acc_stderr,none": "N/A", "alias": "t"}}, "date": null, "n-samples": {"t": {"original": 1.5}}}`))
	f.Add([]byte(`{"results": {"t": {}}, "git_hash": 3, "groups": {"g": null}, "versions": {"t": Infinity}}`))
	dir := f.TempDir()
	path := filepath.Join(dir, "results_2024-01-01T00-00-00.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := ReadResults(path)
		if err != nil {
			if !errs.IsBadInput(err) {
				t.Fatalf("error is not bad input: %v", err)
			}
			return
		}
		for _, task := range r.TaskNames() {
			if m, ok := r.Results.Get(task); ok && m != nil {
				for _, k := range m.Keys() {
					r.Metric(task, k)
				}
			}
		}
		enc, err := r.Encode()
		if err != nil {
			t.Fatalf("accepted file does not encode: %v", err)
		}
		if err := os.WriteFile(path, enc, 0o644); err != nil {
			t.Fatal(err)
		}
		r2, err := ReadResults(path)
		if err != nil {
			t.Fatalf("written file does not read back: %v\n%s", err, enc)
		}
		enc2, err := r2.Encode()
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("read back differently (%v):\n%s\n---\n%s", err, enc, enc2)
		}
	})
}

// FuzzSamples reads arbitrary bytes as a samples_*.jsonl file: no panic,
// every error bad input, and accepted lines encoded by EncodeLine read back
// to the same encoding (with hashes filled as WriteRun fills them).
func FuzzSamples(f *testing.F) {
	for _, p := range fixtureFiles(f, "samples_*.jsonl") {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		lines := bytes.SplitAfter(b, []byte("\n"))
		f.Add(bytes.Join(lines[:min(2, len(lines))], nil))
	}
	f.Add([]byte(`{"doc_id": 0, "doc": {"x": 1}, "arguments": [["a", " b"]], "resps": [[[-1.5, false]]], "metrics": ["acc"], "acc": NaN}` + "\n\n"))
	f.Add([]byte(`{"doc_id": 1e300, "arguments": {"gen_args_0": {"arg_0": "q", "arg_1": {"until": ["\n"]}}}, "extra": [1, 2]}`))
	path := filepath.Join(f.TempDir(), "samples_t_2024-01-01T00-00-00.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := ReadSamples(path)
		if err != nil {
			if !errs.IsBadInput(err) {
				t.Fatalf("error is not bad input: %v", err)
			}
			return
		}
		enc := encodeSamples(t, s)
		if err := os.WriteFile(path, enc, 0o644); err != nil {
			t.Fatal(err)
		}
		s2, err := ReadSamples(path)
		if err != nil {
			t.Fatalf("written file does not read back: %v\n%s", err, enc)
		}
		if enc2 := encodeSamples(t, s2); !bytes.Equal(enc, enc2) {
			t.Fatalf("read back differently:\n%s\n---\n%s", enc, enc2)
		}
	})
}

// encodeSamples fills the hashes of s and encodes every line.
func encodeSamples(t *testing.T, s []Sample) []byte {
	t.Helper()
	var b bytes.Buffer
	for i := range s {
		if err := s[i].FillHashes(); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		line, err := s[i].EncodeLine()
		if err != nil {
			t.Fatalf("line %d does not encode: %v", i+1, err)
		}
		b.Write(line)
	}
	return b.Bytes()
}
