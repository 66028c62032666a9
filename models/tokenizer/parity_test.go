package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
)

// parityNames are the tokenizers under testdata/ with Rust goldens.
var parityNames = []string{"qwen3", "llama3", "llama2", "gemma3", "gpt2"}

type goldenRow struct {
	IDs         []int32 `json:"ids"`
	IDsSpecial  []int32 `json:"ids_special"`
	Decoded     string  `json:"decoded"`
	DecodedSkip string  `json:"decoded_skip"`
}

func corpusTexts(t testing.TB) []string {
	rows := testutil.ReadJSONL[struct{ Text string }](t, filepath.Join("testdata", "corpus.jsonl.gz"))
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Text
	}
	return out
}

// TestParity compares every corpus text against the Rust tokenizers'
// ids (with and without special tokens) and decodes.
func TestParity(t *testing.T) {
	texts := corpusTexts(t)
	if len(texts) < 2000 {
		t.Fatalf("corpus has %d texts, want >= 2000", len(texts))
	}
	for _, name := range parityNames {
		t.Run(name, func(t *testing.T) {
			tok, err := Load(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			gold := testutil.ReadJSONL[goldenRow](t, filepath.Join("testdata", "golden_"+name+".jsonl.gz"))
			if len(gold) != len(texts) {
				t.Fatalf("golden has %d rows, corpus %d", len(gold), len(texts))
			}
			bad := 0
			for i, g := range gold {
				ok := checkRow(t, tok, i, texts[i], g)
				if !ok {
					bad++
				}
				if bad > 10 {
					t.Fatal("too many differences")
				}
			}
			t.Logf("%s: %d/%d texts identical", name, len(texts)-bad, len(texts))
			checkMeta(t, tok, name)
		})
	}
}

func checkRow(t *testing.T, tok *Tokenizer, i int, text string, g goldenRow) bool {
	t.Helper()
	ok := true
	if got := tok.Encode(text, false); !slices.Equal(got, g.IDs) {
		t.Errorf("text %d %q: ids\n got %v\nwant %v", i, text, got, g.IDs)
		ok = false
	}
	if got := tok.Encode(text, true); !slices.Equal(got, g.IDsSpecial) {
		t.Errorf("text %d %q: ids with special tokens\n got %v\nwant %v", i, text, got, g.IDsSpecial)
		ok = false
	}
	if got := tok.Decode(g.IDsSpecial, false); got != g.Decoded {
		t.Errorf("text %d: decode\n got %q\nwant %q", i, got, g.Decoded)
		ok = false
	}
	if got := tok.Decode(g.IDsSpecial, true); got != g.DecodedSkip {
		t.Errorf("text %d: decode skipping special tokens\n got %q\nwant %q", i, got, g.DecodedSkip)
		ok = false
	}
	return ok
}

func checkMeta(t *testing.T, tok *Tokenizer, name string) {
	b, err := os.ReadFile(filepath.Join("testdata", "golden_"+name+"_meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		VocabSize int    `json:"vocab_size"`
		BOS       *int32 `json:"bos_token_id"`
		EOS       *int32 `json:"eos_token_id"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if tok.VocabSize() != m.VocabSize {
		t.Errorf("VocabSize() = %d, want %d", tok.VocabSize(), m.VocabSize)
	}
	for _, c := range []struct {
		what string
		f    func() (int32, bool)
		want *int32
	}{{"BOS", tok.BOS, m.BOS}, {"EOS", tok.EOS, m.EOS}} {
		id, ok := c.f()
		if ok != (c.want != nil) || (ok && id != *c.want) {
			t.Errorf("%s() = %d, %v; want %v", c.what, id, ok, c.want)
		}
	}
}
