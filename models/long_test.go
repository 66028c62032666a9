package models

import (
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/models/nn"
)

// TestLongRowsMatchTransformers scores the 1,500- and 3,000-token requests
// of parity/archs/long_golden.py (tiny random Qwen2, and Mistral with a
// 96-token sliding window) twice: with attention's default query chunks,
// and with a budget of 8 rows a chunk that AttentionMaxChunks raises to
// ⌈T/256⌉ rows (up to 256 chunks a layer, each with its own slice of the
// mask). Both must be within 1e-4 of transformers' unchunked attention,
// and give the same bits.
func TestLongRowsMatchTransformers(t *testing.T) {
	if testing.Short() {
		t.Skip("long rows")
	}
	dir := filepath.Join(testdata, "long")
	reqs := testutil.ReadJSONL[scoreReq](t, filepath.Join(dir, "requests.jsonl"))
	for _, name := range []string{"qwen2", "mistral"} {
		t.Run(name, func(t *testing.T) {
			want := testutil.ReadJSONL[goldenLine](t, filepath.Join(dir, name, "golden.jsonl"))
			tm := loadTestModel(t, filepath.Join(dir, name), nil)
			plain := tm.score(t, reqs, -1)
			saved := nn.AttentionChunkBytes
			nn.AttentionChunkBytes = 1 // 8 rows a chunk: thousands of chunks, capped
			chunked := tm.score(t, reqs, -1)
			nn.AttentionChunkBytes = saved
			for _, run := range []struct {
				name string
				got  [][]float64
			}{{"default chunks", plain}, {"256 chunks", chunked}} {
				d := maxDiff(run.got, want)
				t.Logf("%s, %s: max |Δ logprob_sum| = %.3g over %d requests", name, run.name, d, len(reqs))
				if d > 1e-4 {
					t.Errorf("%s: max |Δ| = %g > 1e-4", run.name, d)
				}
			}
			if d := maxDiffRuns(plain, chunked); d != 0 {
				t.Errorf("chunked attention moved a log-prob by %g", d)
			}
		})
	}
}
