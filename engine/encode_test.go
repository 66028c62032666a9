package engine

import (
	"reflect"
	"testing"

	"github.com/goeval/goeval/models/tokenizer"
)

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
