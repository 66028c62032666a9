package metrics

import (
	"math"
	"testing"
)

func TestMcNemarInterval(t *testing.T) {
	// 100 docs, 10 right only in A, 30 right only in B: d = 0.2,
	// se = sqrt(40 - 400/100)/100 = 0.06.
	lo, hi := McNemarInterval(10, 30, 100)
	if math.Abs(lo-(0.2-1.96*0.06)) > 1e-12 || math.Abs(hi-(0.2+1.96*0.06)) > 1e-12 {
		t.Errorf("interval = [%v, %v]", lo, hi)
	}
	if lo, hi := McNemarInterval(0, 0, 0); lo != 0 || hi != 0 {
		t.Errorf("empty: [%v, %v]", lo, hi)
	}
	if lo, hi := McNemarInterval(0, 0, 50); lo != 0 || hi != 0 {
		t.Errorf("no discordant docs: [%v, %v]", lo, hi)
	}
}
