package tokenizer

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSharedFixtures checks the tiny fixtures' texts against the ids and
// decodes the Rust tokenizers produced for them.
func TestSharedFixtures(t *testing.T) {
	for _, name := range []string{"tiny-llama", "tiny-qwen2"} {
		dir := filepath.Join("..", "..", "..", "shared", "fixtures", name)
		if _, err := os.Stat(dir); err != nil {
			dir = filepath.Join("/work/shared/fixtures", name)
		}
		if _, err := os.Stat(dir); err != nil {
			t.Skipf("shared fixtures not present: %v", err)
		}
		t.Run(name, func(t *testing.T) {
			tok, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			texts := readJSONL[struct{ Text string }](t, filepath.Join(dir, "texts.jsonl"))
			refs := readJSONL[struct {
				IDs                []int32 `json:"ids"`
				IDsWithSpecial     []int32 `json:"ids_with_special"`
				Decoded            string  `json:"decoded"`
				DecodedSkipSpecial string  `json:"decoded_skip_special"`
			}](t, filepath.Join(dir, "tokens_reference.jsonl"))
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

func readJSONL[T any](t testing.TB, name string) []T {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, v)
	}
	return out
}
