package engine

import (
	"math"
	"testing"

	"github.com/goeval/goeval/internal/testutil/fixturemodel"
	"github.com/goeval/goeval/lm"
)

// TestFamilyModes: the base and the adapted model of a family score the
// same in merged and separate mode (≤ 1e-5), and the adapter changes the
// scores (so the family did apply it).
func TestFamilyModes(t *testing.T) {
	base, adapter := fixturemodel.Model(t, fixturemodel.Base), fixturemodel.AdapterDir(t)
	reqs := []lm.LoglikelihoodRequest{{Context: "The capital of France is", Continuation: " Paris"},
		{Context: "2+2=", Continuation: " four"}}
	scores := map[string][2][]float64{}
	for _, mode := range []string{AdapterMerged, AdapterSeparate} {
		fam, err := OpenFamily(base, []string{adapter}, mode, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got [2][]float64
		for i, idx := range []int{-1, 0} {
			m, err := fam.Open(idx)
			if err != nil {
				t.Fatal(err)
			}
			got[i] = scoreWith(t, m, reqs)
			m.Close()
		}
		if _, err := fam.Open(1); err == nil {
			t.Errorf("%s: adapter 1 of 1 opened", mode)
		}
		if err := fam.Close(); err != nil {
			t.Fatal(err)
		}
		scores[mode] = got
	}
	for k := range 2 {
		for j := range reqs {
			m, s := scores[AdapterMerged][k][j], scores[AdapterSeparate][k][j]
			if math.Abs(m-s) > 1e-5 {
				t.Errorf("model %d request %d: merged %v, separate %v", k-1, j, m, s)
			}
		}
	}
	if scores[AdapterMerged][0][0] == scores[AdapterMerged][1][0] {
		t.Error("the adapter did not change the score")
	}
	if _, err := OpenFamily(base, nil, "sideways", Options{}); err == nil {
		t.Error("unknown mode accepted")
	}
}

// TestResolveAdapterMode: auto is separate for several models (the base
// and adapters share one copy of the weights), merged for one adapted
// model; an explicit mode stays.
func TestResolveAdapterMode(t *testing.T) {
	if m := ResolveAdapterMode(AdapterAuto, 3); m != AdapterSeparate {
		t.Errorf("auto mode for 3 models = %s, want separate", m)
	}
	if m := ResolveAdapterMode(AdapterAuto, 1); m != AdapterMerged {
		t.Errorf("auto mode for one adapted model = %s, want merged", m)
	}
	if m := ResolveAdapterMode(AdapterSeparate, 1); m != AdapterSeparate {
		t.Errorf("explicit separate resolved to %s", m)
	}
}
