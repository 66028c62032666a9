package lm

import (
	"context"
	"reflect"
	"testing"
)

// TestSubCall: a sub-call's token and done reports name the caller's
// indices, and it carries no feed.
func TestSubCall(t *testing.T) {
	var tokens [][2]int
	var done []int
	ctx := WithTokenFunc(context.Background(), func(i int, id int32) { tokens = append(tokens, [2]int{i, int(id)}) })
	ctx = WithDoneFunc(ctx, func(i int, _ GenerateResult) { done = append(done, i) })
	ctx = WithFeed(ctx, func(int, func(GenerateRequest) bool) []GenerateRequest { return nil })
	sub := SubCall(ctx, []int{4, 1, 7})
	TokenFunc(sub)(2, 9)
	TokenFunc(sub)(0, 3)
	DoneFunc(sub)(1, GenerateResult{})
	if want := [][2]int{{7, 9}, {4, 3}}; !reflect.DeepEqual(tokens, want) || !reflect.DeepEqual(done, []int{1}) {
		t.Errorf("tokens %v, done %v; want %v and [1]", tokens, done, want)
	}
	if Feed(sub) != nil || Feed(ctx) == nil {
		t.Errorf("the sub-call carries a feed (%v) or the call lost its own", Feed(sub) != nil)
	}
	if plain := SubCall(context.Background(), []int{2}); TokenFunc(plain) != nil || DoneFunc(plain) != nil || Feed(plain) != nil {
		t.Errorf("a sub-call of a call without hooks has some")
	}
}
