package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/goeval/goeval/internal/errs"
)

// ShardRun is a shard folder as goeval merge reads it: its manifest and
// its samples files' lines, checked against the manifest's digests.
type ShardRun struct {
	Dir      string
	Manifest ShardManifest
	// lines are each task's samples lines: the parsed line of each
	// document (its first filter's) and every line's bytes by filter and
	// document.
	docs map[string]map[int]*Sample
	raw  map[string]map[lineKey][]byte
}

// lineKey is one samples line's place: a document under a filter.
type lineKey struct {
	filter string
	doc    int
}

// Label names the shard in messages: "2/4 (out/m/shard-2-of-4)".
func (s *ShardRun) Label() string {
	return fmt.Sprintf("%d/%d (%s)", s.Manifest.Index, s.Manifest.Count, s.Dir)
}

// FindShards returns the shard folders (those holding shard.json) that
// each of dirs is or holds one or two levels down (OUT/<model>/shard-i-of-N
// for goeval run's --output-path OUT), sorted.
func FindShards(dirs []string) ([]string, error) {
	var out []string
	for _, d := range dirs {
		st, err := os.Stat(d)
		if err != nil {
			return nil, errs.BadInputf("%s: %v", d, errors.Unwrap(err))
		}
		if !st.IsDir() {
			return nil, errs.BadInputf("%s is a file: give shard folders, or the --output-path of the shards' runs", d)
		}
		var found []string
		for _, pat := range []string{"", "*", filepath.Join("*", "*")} {
			m, err := filepath.Glob(filepath.Join(d, pat, ShardManifestName))
			if err != nil {
				return nil, err
			}
			for _, f := range m {
				found = append(found, filepath.Dir(f))
			}
			if len(found) > 0 {
				break
			}
		}
		if len(found) == 0 {
			return nil, errs.BadInputf("%s holds no shard (no %s in it or in the folders below): run goeval run --shard INDEX/COUNT --output-path %s first", d, ShardManifestName, d)
		}
		out = append(out, found...)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// ReadShard reads the shard folder dir: its manifest, and its samples
// files, which must be those the manifest describes (same digests).
func ReadShard(dir string) (*ShardRun, error) {
	s := &ShardRun{Dir: dir, docs: map[string]map[int]*Sample{}, raw: map[string]map[lineKey][]byte{}}
	data, err := os.ReadFile(filepath.Join(dir, ShardManifestName))
	if err != nil {
		return nil, errs.BadInputf("shard %s: %v", dir, err)
	}
	if err := json.Unmarshal(data, &s.Manifest); err != nil {
		return nil, errs.BadInputf("shard %s: %s is not a shard manifest: %v", dir, ShardManifestName, err)
	}
	if f := s.Manifest.Format; f != ShardFormat {
		return nil, errs.BadInputf("shard %s: %s has format %q; this goeval reads %q", dir, ShardManifestName, f, ShardFormat)
	}
	for _, t := range s.Manifest.Tasks {
		if err := s.readSamples(t); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// readSamples reads task t's samples file, checking it against t.
func (s *ShardRun) readSamples(t ShardTask) error {
	path := filepath.Join(s.Dir, t.Samples)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return errs.BadInputf("shard %s: %s is missing", s.Label(), t.Samples)
	}
	if err != nil {
		return errs.BadInputf("shard %s: %v", s.Label(), err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != t.SamplesSHA {
		return errs.BadInputf("shard %s: %s is not the file the shard wrote (its sha256 differs from %s's): changed or truncated since",
			s.Label(), t.Samples, ShardManifestName)
	}
	docs, raw := map[int]*Sample{}, map[lineKey][]byte{}
	for i, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		smp, err := parseSampleLine(line)
		if err != nil {
			return errs.BadInputf("shard %s: %s line %d: %v", s.Label(), t.Samples, i+1, err)
		}
		raw[lineKey{smp.Filter, smp.DocID}] = line
		if _, ok := docs[smp.DocID]; !ok {
			docs[smp.DocID] = &smp
		}
	}
	if len(raw) != t.Lines || len(docs) != len(t.Docs) {
		return errs.BadInputf("shard %s: %s holds %d lines of %d documents; %s says %d lines of %d",
			s.Label(), t.Samples, len(raw), len(docs), ShardManifestName, t.Lines, len(t.Docs))
	}
	s.docs[t.Name], s.raw[t.Name] = docs, raw
	return nil
}

// Line is the shard's samples line of task's doc under filter (nil when
// it has none).
func (s *ShardRun) Line(task, filter string, doc int) []byte {
	return s.raw[task][lineKey{filter, doc}]
}
