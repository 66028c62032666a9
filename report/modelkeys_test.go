package report

import (
	"testing"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/lm"
)

// TestModelKeys: lm-eval's [token, "id"] pairs, [null, "None"] for a
// missing token, the pad token falling back to EOS, eot_token_id from EOS
// and max_length defaulting to 2048.
func TestModelKeys(t *testing.T) {
	eos := &lm.Token{Text: "</s>", ID: 2}
	got := modelKeys(lm.Info{EOS: eos, MaxLength: 4096})
	want := `{"eot_token_id": 2, "max_length": 4096, "tokenizer_bos_token": [null, "None"], ` +
		`"tokenizer_eos_token": ["</s>", "2"], "tokenizer_pad_token": ["</s>", "2"]}`
	if b, _ := py.JSON(got, false); string(b) != want {
		t.Errorf("ModelKeys = %s\nwant %s", b, want)
	}
	got = modelKeys(lm.Info{BOS: &lm.Token{Text: "<s>", ID: 1}, Pad: &lm.Token{Text: "<pad>", ID: 0}})
	want = `{"max_length": 2048, "tokenizer_bos_token": ["<s>", "1"], "tokenizer_eos_token": [null, "None"], ` +
		`"tokenizer_pad_token": ["<pad>", "0"]}`
	if b, _ := py.JSON(got, false); string(b) != want {
		t.Errorf("ModelKeys = %s\nwant %s", b, want)
	}
}
