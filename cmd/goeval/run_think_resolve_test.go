package main

import (
	"strconv"
	"testing"

	"github.com/goeval/goeval/internal/testutil"
	"github.com/goeval/goeval/models/tokenizer"
)

// TestThinkResolveID: a think-end token given as an id cuts ids (ByID)
// with the tokenizer's decoding of generations (special tokens skipped)
// and its EOS text as an extra stop string; a special token (which
// decoding drops from the text, so a text cut could never find it) is
// accepted too; an id outside the vocabulary is refused; a text stays a
// text cut, counted by id.
func TestThinkResolveID(t *testing.T) {
	tok, err := tokenizer.Load(testutil.TokenizerDir(t, "qwen3"))
	if err != nil {
		t.Fatal(err)
	}
	id, ok := tok.TokenToID("</think>")
	if !ok {
		t.Fatal("qwen3's tokenizer has no </think>")
	}
	th, err := (&thinkState{endToken: itoa(id)}).resolve(tok)
	if err != nil {
		t.Fatal(err)
	}
	if !th.ByID || th.EndTokenID != id || th.Decode == nil || th.EndToken != "</think>" {
		t.Fatalf("id %d resolved to %+v", id, th)
	}
	eos, ok := tok.EOS()
	if !ok || !tok.IsSpecial(eos) {
		t.Fatal("qwen3's tokenizer has no special EOS")
	}
	ids := append(tok.Encode("a b", false), id, eos)
	if got, want := th.Decode(ids), tok.Decode(ids, true); got != want || got != "a b</think>" {
		t.Errorf("Decode %q, want the generation's decoding %q (a b</think>)", got, want)
	}
	if len(th.Stops) != 1 || th.Stops[0] != tok.Decode([]int32{eos}, false) {
		t.Errorf("stops %q, want the EOS text", th.Stops)
	}
	if th, err := (&thinkState{endToken: itoa(eos)}).resolve(tok); err != nil || !th.ByID {
		t.Errorf("special id %d: %+v, %v; want an id cut", eos, th, err)
	}
	if _, err := (&thinkState{endToken: "99999999"}).resolve(tok); err == nil {
		t.Error("an id outside the vocabulary was accepted")
	}
	th, err = (&thinkState{endToken: "</think>"}).resolve(tok)
	if err != nil || th.ByID || !th.HasID || th.EndTokenID != id {
		t.Errorf("text resolved to %+v, %v; want a text cut counted by id %d", th, err, id)
	}
}

func itoa(id int32) string { return strconv.Itoa(int(id)) }
