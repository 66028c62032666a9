package safetensors

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/errs"
)

// writeShards writes two shards and an index mapping each tensor to the
// shard it was written to, then applies edit to the weight map.
func writeShards(t testing.TB, edit func(wm map[string]string)) string {
	t.Helper()
	dir := t.TempDir()
	shards := [][]Tensor{
		{{Name: "a", DType: "F32", Shape: []int{2}, Data: le32(1, 2)}, {Name: "b", DType: "BF16", Shape: []int{1}, Data: le16(0x4000)}},
		{{Name: "c", DType: "F16", Shape: []int{1, 1}, Data: le16(0x3C00)}},
	}
	wm := map[string]string{}
	for i, ts := range shards {
		name := ShardName(i+1, len(shards))
		if err := Write(filepath.Join(dir, name), ts, map[string]string{"format": "pt"}); err != nil {
			t.Fatal(err)
		}
		for _, x := range ts {
			wm[x.Name] = name
		}
	}
	if edit != nil {
		edit(wm)
	}
	if err := WriteIndex(filepath.Join(dir, IndexFile), wm, 14); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestShardedRead(t *testing.T) {
	dir := writeShards(t, nil)
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := s.Names(); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Fatalf("Names = %v", got)
	}
	want := map[string][]float32{"a": {1, 2}, "b": {2}, "c": {1}}
	for name, w := range want {
		got, err := s.Float32(name)
		if err != nil || !reflect.DeepEqual(got, w) {
			t.Errorf("%s = %v, %v; want %v", name, got, err, w)
		}
	}
	if info, _ := s.Info("c"); filepath.Base(info.File) != "model-00002-of-00002.safetensors" {
		t.Errorf("c is in %s", info.File)
	}
	if s.Metadata()["total_size"] != "14" || len(s.Files()) != 2 {
		t.Errorf("metadata %v, files %v", s.Metadata(), s.Files())
	}
}

func TestShardedBadInput(t *testing.T) {
	cases := []struct {
		name string
		edit func(wm map[string]string)
		want string
	}{
		{"missing shard", func(wm map[string]string) { wm["c"] = "model-00003-of-00003.safetensors" }, "does not exist"},
		{"listed tensor absent", func(wm map[string]string) { wm["zz"] = ShardName(1, 2) }, `tensor "zz" is listed`},
		{"unlisted tensor", func(wm map[string]string) { delete(wm, "b") }, `tensor "b" is in the shard but not in`},
		{"wrong shard", func(wm map[string]string) { wm["b"] = ShardName(2, 2) }, `"b"`},
		{"path escape", func(wm map[string]string) { wm["a"] = "../x.safetensors" }, "plain file names"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeShards(t, c.edit)
			s, err := Open(dir)
			if err == nil {
				s.Close()
				t.Fatal("no error")
			}
			if !errs.IsBadInput(err) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q: want bad input naming %s and containing %q", err, dir, c.want)
			}
		})
	}
	t.Run("no checkpoint", func(t *testing.T) {
		dir := t.TempDir()
		if _, err := Open(dir); err == nil || !errs.IsBadInput(err) || !strings.Contains(err.Error(), IndexFile) {
			t.Fatalf("empty dir: %v", err)
		}
	})
	t.Run("malformed index", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, IndexFile), []byte(`{"weight_map": [`), 0o644)
		if _, err := Open(dir); err == nil || !errs.IsBadInput(err) || !strings.Contains(err.Error(), IndexFile) {
			t.Fatalf("malformed index: %v", err)
		}
	})
}
