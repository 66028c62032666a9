package tokenizer

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
)

// TestSharedFixtures checks the tiny fixtures' texts against the ids and
// decodes the Rust tokenizers produced for them (testdata/fixtures, copied
// from the llama.cpp fixtures; the tokenizers are testdata/llama2 and
// testdata/qwen3, gzipped).
func TestSharedFixtures(t *testing.T) {
	for name, tokName := range map[string]string{"tiny-llama": "llama2", "tiny-qwen2": "qwen3"} {
		t.Run(name, func(t *testing.T) {
			dir := testutil.Path(t, "models/tokenizer/testdata/fixtures/"+name)
			tok, err := Load(testutil.Path(t, "models/tokenizer/testdata/"+tokName))
			if err != nil {
				t.Fatal(err)
			}
			texts := testutil.ReadJSONL[struct{ Text string }](t, filepath.Join(dir, "texts.jsonl"))
			refs := testutil.ReadJSONL[struct {
				IDs                []int32 `json:"ids"`
				IDsWithSpecial     []int32 `json:"ids_with_special"`
				Decoded            string  `json:"decoded"`
				DecodedSkipSpecial string  `json:"decoded_skip_special"`
			}](t, filepath.Join(dir, "tokens_reference.jsonl"))
			if len(texts) != len(refs) {
				t.Fatalf("%d texts, %d references", len(texts), len(refs))
			}
			for i, r := range refs {
				text := texts[i].Text
				if got := tok.Encode(text, false); !slices.Equal(got, r.IDs) {
					t.Errorf("%d %q: ids\n got %v\nwant %v", i, text, got, r.IDs)
				}
				if got := tok.Encode(text, true); !slices.Equal(got, r.IDsWithSpecial) {
					t.Errorf("%d %q: ids with special\n got %v\nwant %v", i, text, got, r.IDsWithSpecial)
				}
				if got := tok.Decode(r.IDs, false); got != r.Decoded {
					t.Errorf("%d: decode\n got %q\nwant %q", i, got, r.Decoded)
				}
			}
		})
	}
}
