package py

import (
	"reflect"
	"strconv"
	"testing"
)

// Expected values printed by CPython 3.11's random module (see the command
// in each case's comment); they are the reference, not our own output.
func TestMatchesCPython(t *testing.T) {
	// random.Random(1234): [r.getrandbits(32) for _ in range(3)]
	r := NewRand(1234)
	got := []uint64{r.GetRandBits(32), r.GetRandBits(32), r.GetRandBits(32)}
	if want := []uint64{4150886329, 3342196574, 1892932127}; !reflect.DeepEqual(got, want) {
		t.Errorf("getrandbits(32) x3 = %v, want %v", got, want)
	}
	// random.Random(0).random() twice
	r = NewRand(0)
	a, b := strconv.FormatFloat(r.Random(), 'g', -1, 64), strconv.FormatFloat(r.Random(), 'g', -1, 64)
	if a != "0.8444218515250481" || b != "0.7579544029403025" {
		t.Errorf("random() = %s %s", a, b)
	}
	// multi-word and negative seeds
	if v := NewRand(1<<40 + 5).GetRandBits(32); v != 2166296868 {
		t.Errorf("seed 2**40+5: %d", v)
	}
	if v := NewRand(-7).GetRandBits(32); v != 1390851128 {
		t.Errorf("seed -7: %d", v)
	}
}

func TestSampleChoicesShuffle(t *testing.T) {
	// r=random.Random(1234); r.sample(range(10),3), r.sample(range(100),5),
	// r.sample(range(1000),8), r.getrandbits(40)
	r := NewRand(1234)
	if got := r.SampleIndex(10, 3); !reflect.DeepEqual(got, []int{7, 1, 0}) {
		t.Errorf("sample(10,3) = %v", got)
	}
	if got := r.SampleIndex(100, 5); !reflect.DeepEqual(got, []int{11, 74, 4, 85, 88}) {
		t.Errorf("sample(100,5) = %v", got)
	}
	if got := r.SampleIndex(1000, 8); !reflect.DeepEqual(got, []int{85, 100, 784, 363, 242, 17, 31, 807}) {
		t.Errorf("sample(1000,8) = %v", got)
	}
	if got := r.GetRandBits(40); got != 378025156144 {
		t.Errorf("getrandbits(40) = %d", got)
	}
	// random.Random(3).choices(range(7), k=10)
	if got := NewRand(3).ChoicesIndex(7, 10); !reflect.DeepEqual(got, []int{1, 3, 2, 4, 4, 0, 0, 5, 1, 1}) {
		t.Errorf("choices = %v", got)
	}
	// x=list(range(10)); random.Random(5).shuffle(x)
	x := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	NewRand(5).Shuffle(len(x), func(i, j int) { x[i], x[j] = x[j], x[i] })
	if !reflect.DeepEqual(x, []int{2, 3, 1, 0, 8, 7, 6, 5, 4, 9}) {
		t.Errorf("shuffle = %v", x)
	}
	// random.Random(9): [r._randbelow(1000) for _ in range(5)]
	r = NewRand(9)
	var rb []int
	for range 5 {
		rb = append(rb, r.RandBelow(1000))
	}
	if !reflect.DeepEqual(rb, []int{474, 627, 382, 273, 141}) {
		t.Errorf("_randbelow = %v", rb)
	}
}
