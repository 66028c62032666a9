package engine

import (
	"reflect"
	"strings"
	"testing"

	"github.com/goeval/goeval/models/tokenizer"
)

// charTok is a toy tokenizer: one token per byte, BOS = 1 prepended when
// addSpecial (Llama-like), "<s>" decodes BOS.
type charTok struct{}

func (charTok) Encode(s string, add bool) []int32 {
	var out []int32
	if add {
		if strings.HasPrefix(s, "<s>") {
			panic("tokEncode must not add BOS to text starting with <s>")
		}
		out = append(out, 1)
	}
	for _, b := range []byte(s) {
		out = append(out, int32(b))
	}
	return out
}
func (charTok) Decode(ids []int32, _ bool) string {
	var sb strings.Builder
	for _, id := range ids {
		if id == 1 {
			sb.WriteString("<s>")
		} else {
			sb.WriteByte(byte(id))
		}
	}
	return sb.String()
}
func (charTok) BOS() (int32, bool) { return 1, true }
func (charTok) EOS() (int32, bool) { return 2, true }

func TestEncodePair(t *testing.T) {
	no, yes := false, true
	bos := specials{prefix: 1}
	cases := []struct {
		ctx, cont      string
		wantC, wantCon []int32
		sp             specials
	}{
		// Trailing space moves to the continuation.
		{"ab ", "c", []int32{1, 'a', 'b'}, []int32{' ', 'c'}, bos},
		{"ab", " c", []int32{1, 'a', 'b'}, []int32{' ', 'c'}, bos},
		// Empty context → [prefix], continuation without special tokens.
		{"", "xy", []int32{1}, []int32{'x', 'y'}, bos},
		{"", "xy", []int32{2}, []int32{'x', 'y'}, specials{prefix: 2}},
		// A context already starting with the BOS text gets no second BOS.
		{"<s>a", "b", []int32{'<', 's', '>', 'a'}, []int32{'b'}, bos},
		// add_bos_token=False: no special tokens at all; True: the default.
		{"ab", "c", []int32{'a', 'b'}, []int32{'c'}, specials{prefix: 1, addBOS: &no}},
		{"ab", "c", []int32{1, 'a', 'b'}, []int32{'c'}, specials{prefix: 1, addBOS: &yes}},
		// The prefix token's text (here EOS, byte 2) turns special tokens off, as tok_encode does.
		{"\x02a", "b", []int32{2, 'a'}, []int32{'b'}, specials{prefix: 2}},
	}
	for _, c := range cases {
		gc, gk := encodePair(charTok{}, c.ctx, c.cont, c.sp)
		if !reflect.DeepEqual(gc, c.wantC) || !reflect.DeepEqual(gk, c.wantCon) {
			t.Errorf("encodePair(%q, %q) = %v, %v; want %v, %v", c.ctx, c.cont, gc, gk, c.wantC, c.wantCon)
		}
	}
	// Empty context whose continuation starts with the prefix token.
	if c, k := splitEmptyContext(1, []int32{1, 5}); !reflect.DeepEqual(c, []int32{1}) || !reflect.DeepEqual(k, []int32{5}) {
		t.Errorf("splitEmptyContext = %v, %v", c, k)
	}
}

func TestMakeItemTruncatesLeft(t *testing.T) {
	it, err := makeItem([]int32{1, 2, 3, 4, 5}, []int32{6, 7}, 4)
	if err != nil {
		t.Fatal(err)
	}
	// (ctx+cont)[-(4+1):][:-1] = [3 4 5 6], targets [6 7].
	if !reflect.DeepEqual(it.inp, []int32{3, 4, 5, 6}) || !reflect.DeepEqual(it.targets, []int32{6, 7}) {
		t.Fatalf("makeItem = %+v", it)
	}
	if _, err := makeItem([]int32{1}, []int32{2, 3, 4, 5, 6, 7}, 4); err == nil {
		t.Fatal("continuation longer than max_length: want an error")
	}
}

func TestBuckets(t *testing.T) {
	var got []int
	for _, n := range []int{1, 8, 9, 17, 25, 33, 49, 65, 100, 129, 200, 1000} {
		got = append(got, bucketT(n, 4096))
	}
	want := []int{8, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 1024}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("bucketT = %v, want %v", got, want)
	}
	if b := bucketT(300, 260); b != 304 {
		t.Fatalf("bucketT(300, 260) = %d, want the 8-aligned length 304", b)
	}
}

// The pure-Go tokenizer satisfies the engine's interface.
var _ Tokenizer = (*tokenizer.Tokenizer)(nil)
