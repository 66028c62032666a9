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
