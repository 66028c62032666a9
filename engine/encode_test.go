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
	if !reflect.DeepEqual(it.Input, []int32{3, 4, 5, 6}) || !reflect.DeepEqual(it.Targets, []int32{6, 7}) {
		t.Fatalf("makeItem = %+v", it)
	}
	if _, err := makeItem([]int32{1}, []int32{2, 3, 4, 5, 6, 7}, 4); err == nil {
		t.Fatal("continuation longer than max_length: want an error")
	}
}

// The pure-Go tokenizer satisfies the engine's interface.
var _ Tokenizer = (*tokenizer.Tokenizer)(nil)
