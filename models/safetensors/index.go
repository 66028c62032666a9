package safetensors

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/goeval/goeval/internal/errs"
)

// SingleFile and IndexFile are the checkpoint file names Open looks for.
const (
	SingleFile = "model.safetensors"
	IndexFile  = "model.safetensors.index.json"
)

// index is model.safetensors.index.json.
type index struct {
	Metadata  map[string]any    `json:"metadata"`
	WeightMap map[string]string `json:"weight_map"`
}

// Open maps the checkpoint in dir: dir/model.safetensors if present,
// otherwise the shards listed in dir/model.safetensors.index.json. For a
// sharded checkpoint every shard must exist, every tensor of the index must
// be in the shard it names, and every tensor of a shard must be in the index.
func Open(dir string) (*Set, error) {
	single := filepath.Join(dir, SingleFile)
	if _, err := os.Stat(single); err == nil {
		return OpenFile(single)
	}
	idxPath := filepath.Join(dir, IndexFile)
	data, err := os.ReadFile(idxPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			if st, e := os.Stat(dir); e != nil || !st.IsDir() {
				return nil, errs.BadInputf("%s: no such model directory", dir)
			}
			return nil, errs.BadInputf("%s: no %s or %s; is this a Hugging Face safetensors checkpoint?", dir, SingleFile, IndexFile)
		}
		return nil, fmt.Errorf("read %s: %w", idxPath, err)
	}
	var idx index
	if err := json.Unmarshal(data, &idx); err != nil {
		return nil, errs.BadInputf("%s: malformed JSON: %v", idxPath, err)
	}
	if len(idx.WeightMap) == 0 {
		return nil, errs.BadInputf("%s: weight_map is missing or empty", idxPath)
	}
	s := &Set{source: idxPath, maps: map[string][]byte{}, infos: map[string]TensorInfo{}, metadata: map[string]string{}}
	if err := s.openShards(dir, idxPath, idx.WeightMap); err != nil {
		s.Close()
		return nil, err
	}
	for k, v := range idx.Metadata {
		s.metadata[k] = fmt.Sprint(v)
	}
	return s, nil
}

// openShards maps each shard named in weightMap and cross-checks both ways.
func (s *Set) openShards(dir, idxPath string, weightMap map[string]string) error {
	shards := map[string][]string{} // shard file name → tensors the index puts there
	for name, file := range weightMap {
		if file == "" || filepath.Base(file) != file {
			return errs.BadInputf("%s: tensor %q maps to %q; shard names must be plain file names in the same directory", idxPath, name, file)
		}
		shards[file] = append(shards[file], name)
	}
	files := make([]string, 0, len(shards))
	for f := range shards {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		p := filepath.Join(dir, f)
		if _, err := os.Stat(p); err != nil {
			return errs.BadInputf("%s: shard %s listed in the index does not exist", idxPath, p)
		}
		infos, _, err := s.mapFile(p)
		if err != nil {
			return err
		}
		if err := crossCheck(idxPath, p, infos, shards[f], weightMap, f); err != nil {
			return err
		}
		for n, t := range infos {
			s.infos[n] = t
		}
	}
	return nil
}

// crossCheck verifies that shard p holds exactly the tensors the index
// assigns to it.
func crossCheck(idxPath, p string, infos map[string]TensorInfo, listed []string, weightMap map[string]string, f string) error {
	sort.Strings(listed)
	for _, name := range listed {
		if _, ok := infos[name]; !ok {
			return errs.BadInputf("%s: tensor %q is listed in %s but missing from the shard", p, name, filepath.Base(idxPath))
		}
	}
	names := make([]string, 0, len(infos))
	for n := range infos {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if weightMap[n] != f {
			if weightMap[n] == "" {
				return errs.BadInputf("%s: tensor %q is in the shard but not in %s", p, n, filepath.Base(idxPath))
			}
			return errs.BadInputf("%s: tensor %q is in this shard but %s assigns it to %s", p, n, filepath.Base(idxPath), weightMap[n])
		}
	}
	return nil
}

// WriteIndex writes a model.safetensors.index.json at path, as transformers'
// save_pretrained does: {"metadata": {"total_size": N}, "weight_map": {...}}.
func WriteIndex(path string, weightMap map[string]string, totalSize int64) error {
	data, err := json.MarshalIndent(map[string]any{
		"metadata":   map[string]any{"total_size": totalSize},
		"weight_map": weightMap,
	}, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// ShardName is the transformers shard file name: model-00001-of-00003.safetensors.
func ShardName(i, n int) string { return fmt.Sprintf("model-%05d-of-%05d.safetensors", i, n) }
