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

// TestPoolFit: a request with no storage of its exact size pooled takes the
// smallest pooled storage of up to poolFit times its size, sliced to it;
// that storage goes back under its full size.
func TestPoolFit(t *testing.T) {
	p := newPool()
	const n = 1 << 12
	for _, size := range []int{3 * n, 2 * n, poolFit*n + 1} {
		p.put(dtypes.Float32, make([]float32, size))
	}
	got := p.get(dtypes.Float32, n+1, false).([]float32)
	if len(got) != n+1 || cap(got) != 2*n {
		t.Fatalf("got len %d cap %d, want the 2n buffer sliced to n+1", len(got), cap(got))
	}
	if got := p.get(dtypes.Float32, n, false).([]float32); cap(got) != 3*n {
		t.Fatalf("second request got cap %d, want the 3n buffer", cap(got))
	}
	if got := p.get(dtypes.Float32, n, false).([]float32); cap(got) != n {
		t.Fatalf("third request got cap %d, want a new buffer: the last pooled one is over poolFit × n", cap(got))
	}
	p.put(dtypes.Float32, got)
	if l := p.free[poolKey{dtypes.Float32, 2 * n}]; len(l) != 1 || flatLen(l[0]) != 2*n {
		t.Fatalf("storage not pooled back under its full size: %v", p.free)
	}
}
