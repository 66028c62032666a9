package plan

import (
	"fmt"
	"testing"
)

// shapeSet is the distinct (kind, B, T, K) of pl's passes, and the padded
// tokens of each kind.
func shapeSet(pl *Plan) (map[string]bool, map[Kind]int) {
	shapes, padded := map[string]bool{}, map[Kind]int{}
	for _, p := range pl.Passes {
		shapes[fmt.Sprintf("%d B=%d T=%d K=%d", p.Kind, p.B, p.T, p.K)] = true
		padded[p.Kind] += p.B * p.T
	}
	return shapes, padded
}

// TestUniformShapes: with Options.Uniform a call's packed passes and its
// unpacked passes each take one shape when that adds at most the slack
// of padded tokens, and keep their buckets when it would add more; exact
// shapes are left alone.
func TestUniformShapes(t *testing.T) {
	items := workload(3, 60, 90)
	for _, o := range []Options{
		{BatchSize: 4, MaxLen: 4096},
		{BatchSize: 8, MaxLen: 4096, Pack: true, Align: 1, AttnKeys: 300, RowLengths: []int{128}},
	} {
		before, padBefore := shapeSet(New(items, o))
		if len(before) < 2 {
			t.Fatalf("%+v: the workload needs %d shapes; want several to merge", o, len(before))
		}
		o.Uniform = 10
		after, padAfter := shapeSet(New(items, o))
		if len(after) != 1 {
			t.Errorf("%+v: %d shapes (%v), want one", o, len(after), after)
		}
		for k, n := range padAfter {
			if n < padBefore[k] || float64(n) > 11*float64(padBefore[k]) {
				t.Errorf("%+v: kind %d runs %d padded tokens, %d with its own buckets", o, k, n, padBefore[k])
			}
		}
		o.Uniform = 1e-9 // no padding to spare: the buckets stay
		if same, _ := shapeSet(New(items, o)); len(same) != len(before) {
			t.Errorf("%+v with no slack: %d shapes, want the %d of the buckets", o, len(same), len(before))
		}
		o.Uniform, o.Shapes = 10, Shapes{Exact: true}
		exact, _ := shapeSet(New(items, o))
		o.Uniform = 0
		if plain, _ := shapeSet(New(items, o)); len(exact) != len(plain) {
			t.Errorf("%+v: exact shapes changed by Uniform: %d shapes, %d without", o, len(exact), len(plain))
		}
	}
	// One long row among short ones: padding every row to its length
	// would multiply the tokens; the passes keep their buckets.
	long := append(workload(4, 30, 0), item(make([]int32, 1500), []int32{1}))
	o := Options{BatchSize: 8, MaxLen: 4096, Uniform: 0.25}
	if got, _ := shapeSet(New(long, o)); len(got) < 2 {
		t.Errorf("a 1500-token row among short ones: one shape %v at slack 0.25", got)
	}
}
