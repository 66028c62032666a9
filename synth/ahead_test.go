package synth

import (
	"bytes"
	"hash/fnv"
	"os"
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/models"
)

// TestAheadSameBytes: the checkpoint generated several tensors at a time
// within a byte budget is byte for byte the one generated one tensor at a
// time, sharded or not, and the same as each tensor's own stream written
// in name order.
func TestAheadSameBytes(t *testing.T) {
	defer func(b int64, w int) { aheadBytes, aheadWorkers = b, w }(aheadBytes, aheadWorkers)
	write := func(bytes int64, workers, shards int) string {
		aheadBytes, aheadWorkers = bytes, workers
		o := tinyOpts("llama", t.TempDir())
		o.DType, o.Shards = "bf16", shards
		if err := Model(o); err != nil {
			t.Fatal(err)
		}
		return o.Out
	}
	for _, shards := range []int{1, 3} {
		serial := write(0, 1, shards) // nothing held ahead: one tensor at a time
		for _, c := range []struct {
			bytes   int64
			workers int
		}{{1 << 30, 8}, {3000, 3}} { // all at once; a budget of a few tensors
			got := write(c.bytes, c.workers, shards)
			files, _ := filepath.Glob(filepath.Join(serial, "*.safetensors"))
			if len(files) != shards {
				t.Fatalf("%d files, want %d", len(files), shards)
			}
			for _, f := range files {
				x, _ := os.ReadFile(f)
				y, err := os.ReadFile(filepath.Join(got, filepath.Base(f)))
				if err != nil || !bytes.Equal(x, y) {
					t.Errorf("shards %d, budget %d, %d workers: %s differs from the serial file (%v)", shards, c.bytes, c.workers, filepath.Base(f), err)
				}
			}
		}
	}
	// The single file's tensor data is each tensor's stream in name order.
	dir := write(1<<30, 4, 1)
	o := tinyOpts("llama", dir)
	o.DType = "bf16"
	if err := o.resolve(); err != nil {
		t.Fatal(err)
	}
	c, err := models.LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	for _, st := range synthPlan(c) {
		if err := fillTensor(&want, st, "BF16", o.Seed); err != nil {
			t.Fatal(err)
		}
	}
	file, _ := os.ReadFile(filepath.Join(dir, "model.safetensors"))
	if !bytes.HasSuffix(file, want.Bytes()) {
		h := fnv.New64a()
		h.Write(file)
		t.Errorf("model.safetensors (fnv %x) does not end with the tensors' streams in name order", h.Sum64())
	}
}
