package gocpu

import (
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
)

// TestPoolAges: storage of a size asked for again within poolKeep
// executions is reused; a size no execution asked for in that many leaves
// the pool, and its bytes with it.
func TestPoolAges(t *testing.T) {
	p := newPool()
	const big, small = 1 << 16, 1 << 12 // elements: both over put's 4 KiB floor
	a := p.get(dtypes.Float32, big, false).([]float32)
	p.put(dtypes.Float32, a)
	p.put(dtypes.Float32, make([]float32, small))
	if p.bytes != 4*(big+small) {
		t.Fatalf("pool holds %d bytes, want %d", p.bytes, 4*(big+small))
	}
	for i := range poolKeep {
		p.age()
		if got := p.get(dtypes.Float32, small, false).([]float32); len(got) != small {
			t.Fatalf("age %d: got %d elements", i, len(got))
		} else {
			p.put(dtypes.Float32, got) // the small size is in use every execution
		}
	}
	if got := p.get(dtypes.Float32, big, false).([]float32); &got[0] != &a[0] {
		t.Fatal("a size unused for poolKeep executions was not reused")
	} else {
		p.put(dtypes.Float32, got)
	}
	for range poolKeep + 1 {
		p.age()
		p.put(dtypes.Float32, p.get(dtypes.Float32, small, false))
	}
	if _, ok := p.free[poolKey{dtypes.Float32, big}]; ok || p.bytes != 4*small {
		t.Fatalf("after %d executions without use the big size is still pooled (%d bytes held)", poolKeep+1, p.bytes)
	}
	if got := p.get(dtypes.Float32, big, false).([]float32); &got[0] == &a[0] {
		t.Fatal("an aged-out buffer was handed out again")
	}
}
