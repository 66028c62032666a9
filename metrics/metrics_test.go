package metrics

import (
	"math"
	"reflect"
	"testing"

	"github.com/goeval/goeval/internal/py"
)

func TestArgmaxNumpyRules(t *testing.T) {
	cases := []struct {
		xs   []float64
		want int
	}{
		{[]float64{-1, -0.5, -0.5}, 1},                // first maximum wins
		{[]float64{-1, math.NaN(), 0, math.NaN()}, 1}, // first NaN wins
		{[]float64{math.Inf(-1), math.Inf(-1)}, 0},
		{nil, -1},
	}
	for _, c := range cases {
		if got := Argmax(c.xs); got != c.want {
			t.Errorf("Argmax(%v) = %d, want %d", c.xs, got, c.want)
		}
	}
}

// Hand-computed: lls -4, -6; choices "ab" (2 chars) and "ñandú" (5 code
// points, 7 bytes). acc: argmax(-4,-6)=0. acc_norm: -2 vs -1.2 → 1.
// acc_bytes: -2 vs -0.857 → 1.
func TestScoreMultipleChoice(t *testing.T) {
	s := ScoreMultipleChoice([]float64{-4, -6}, []bool{false, true}, []string{"ab", "ñandú"}, 1)
	want := MCScores{Acc: 0, AccNorm: 1, AccBytes: 1, ExactMatch: 1, Pred: 0, PredNorm: 1}
	if s != want {
		t.Errorf("got %+v, want %+v", s, want)
	}
	// code points, not bytes: "ñññ" is 3 chars (6 bytes) vs "abcd" 4 chars:
	// -3/3=-1 vs -3.6/4=-0.9 → 1; by bytes -0.5 vs -0.9 → 0.
	s = ScoreMultipleChoice([]float64{-3, -3.6}, []bool{false, false}, []string{"ñññ", "abcd"}, 0)
	if s.AccNorm != 0 || s.AccBytes != 1 || s.PredNorm != 1 {
		t.Errorf("code-point normalisation: %+v", s)
	}
	if s := ScoreMultipleChoice([]float64{-1, -2}, []bool{true, true}, []string{"a", "b"}, GoldOutOfRange); s.Acc != 0 || s.ExactMatch != 0 {
		t.Errorf("out-of-range gold must score 0: %+v", s)
	}
	if g := GoldIndex("b", []string{"a", "b"}); g != 1 {
		t.Errorf("GoldIndex string = %d", g)
	}
	if g := GoldIndex(5, []string{"a", "b"}); g != GoldOutOfRange {
		t.Errorf("GoldIndex out of range = %d", g)
	}
	if v := AccMutualInfo([]float64{-5, -6}, []float64{-1, -4}, 1); v != 1 { // -4 vs -2
		t.Errorf("acc_mutual_info = %v", v)
	}
	mt := ScoreMultipleTarget([]float64{-1, -2, -3}, []bool{false, true, false}, []string{"a", "b", "c"}, []int{2, 0})
	if mt.Acc != 1 || mt.ExactMatch != 0 {
		t.Errorf("multiple target: %+v", mt)
	}
}

func TestPyRegexSemantics(t *testing.T) {
	// Python `$` matches before a final newline; Go RE2's does not.
	if got := py.MustCompile(`\.$`).Sub("42.\n", ""); got != "42\n" {
		t.Errorf(`\.$ sub = %q`, got)
	}
	// \Z is the absolute end in Python.
	if py.MustCompile(`a\Z`).MatchString("a\n") {
		t.Error(`a\Z matched before a final newline`)
	}
	// Unicode \d and \s (with U+001C), look-ahead, backreference.
	if got := py.MustCompile(`\d+`).FindAll("x٣٤y"); !reflect.DeepEqual(got, [][]string{{"٣٤"}}) {
		t.Errorf(`\d = %q`, got)
	}
	if got := py.MustCompile(`\s`).Sub("a\x1cb\u3000c", "_"); got != "a_b_c" {
		t.Errorf(`\s = %q`, got)
	}
	if got := py.MustCompile(`\w+(?=!)`).FindAll("hi wörld!"); !reflect.DeepEqual(got, [][]string{{"wörld"}}) {
		t.Errorf("look-ahead = %q", got)
	}
	if got := py.MustCompile(`(?P<c>\w)(?P=c)`).FindAll("abccd"); !reflect.DeepEqual(got, [][]string{{"c"}}) {
		t.Errorf("named backreference = %q", got)
	}
	// Python re.sub templates, and group numbering with named groups.
	if got := py.MustCompile(`(?P<a>\w+)-(\w+)`).Sub("x-y $", `\2+\g<a>\g<1>$`); got != "y+xx$ $" {
		t.Errorf("template sub = %q", got)
	}
	// findall with empty matches, re.split keeping empty ends and groups.
	if got := py.MustCompile(`x*`).FindAll("abxd"); len(got) != 5 || got[2][0] != "x" {
		t.Errorf("empty-match findall = %q", got)
	}
	if got := py.MustCompile(`\s+`).Split(" a  b "); !reflect.DeepEqual(got, []string{"", "a", "b", ""}) {
		t.Errorf("split = %q", got)
	}
	if got := py.MustCompile(`(-)`).Split("a-b"); !reflect.DeepEqual(got, []string{"a", "-", "b"}) {
		t.Errorf("split with group = %q", got)
	}
	if _, err := py.Compile(`(unclosed`); err == nil {
		t.Error("bad pattern compiled")
	}
}

func TestFilters(t *testing.T) {
	if TakeFirst([]string{"a", "b"}) != "a" || TakeFirst(nil) != "" {
		t.Error("take_first")
	}
	f, _ := NewRegexFilter(`(\d)`, 5, "[invalid]")
	if got := f.Apply("1 2"); got != "[invalid]" {
		t.Errorf("out-of-range group_select = %q", got)
	}
	if got := f.ApplyAll([]string{"7"}); !reflect.DeepEqual(got, []string{"[invalid]"}) {
		t.Errorf("ApplyAll = %q", got)
	}
	if Lowercase("ÀB") != "àb" || Uppercase("ß") != "SS" || RemoveWhitespace("\x1f a \n") != "a" {
		t.Error("case/whitespace filters")
	}
}

func TestStderrNA(t *testing.T) {
	for _, c := range []struct {
		agg   string
		vals  []Value
		iters int
	}{
		{AggMean, []Value{Float(1), Float(0)}, 0}, // bootstrap_iters 0
		{AggMean, []Value{Float(1)}, 100},         // one item
		{AggWeightedPerplexity, []Value{Pair(-1, 2), Pair(-2, 3)}, 100},
		{AggBitsPerByte, []Value{Pair(-1, 2), Pair(-2, 3)}, 100},
	} {
		_, ok, err := Stderr(c.agg, c.vals, c.iters)
		if ok || err != nil {
			t.Errorf("%s %v iters %d: ok=%v err=%v, want N/A", c.agg, c.vals, c.iters, ok, err)
		}
	}
	// 0/1 data: sqrt(p(1-p)/(n-1)) = sqrt(0.25/3) for [1,0,1,0].
	se, ok, _ := Stderr(AggMean, []Value{Int(1), Float(0), Bool(true), Bool(false)}, 10)
	if !ok || math.Abs(se-math.Sqrt(0.25/3)) > 1e-15 {
		t.Errorf("mean stderr = %v", se)
	}
	if _, err := Aggregate("nope", []Value{Float(1)}); err == nil {
		t.Error("unknown aggregation accepted")
	}
	if _, err := Aggregate(AggMean, []Value{Pair(1, 2)}); err == nil {
		t.Error("pair value accepted by mean")
	}
	if _, err := Aggregate(AggWeightedPerplexity, []Value{Float(1)}); err == nil {
		t.Error("number value accepted by weighted_perplexity")
	}
	if _, err := Aggregate(AggF1, []Value{Pair(2, 1)}); err == nil {
		t.Error("non-binary f1 accepted")
	}
}

func TestGroupAggregateNA(t *testing.T) {
	v, _, ok := GroupAggregate([]SubtaskStat{{0.5, 0.1, true, 10}, {1, 0, false, 30}}, true)
	if ok || v != (0.5*10+30)/40 {
		t.Errorf("value %v ok %v", v, ok)
	}
	// Hand-computed pooled stderr: se 0.1, 0.2; n 10, 30:
	// (9·0.01·10 + 29·0.04·30)/(40-2) = (0.9+34.8)/38; sqrt(that/40).
	_, se, ok := GroupAggregate([]SubtaskStat{{0, 0.1, true, 10}, {0, 0.2, true, 30}}, true)
	if want := math.Sqrt((0.9 + 34.8) / 38 / 40); !ok || math.Abs(se-want) > 1e-15 {
		t.Errorf("pooled = %v, want %v", se, want)
	}
}

func TestDropAssignment(t *testing.T) {
	// 2 gold spans, 3 predicted: the best total is 0.9 + 0.95 = 1.85 (the
	// greedy pick of 1.0 first would give 1.0 + 0.8 = 1.8).
	s := [][]float64{{1.0, 0.9, 0}, {0.95, 0, 0.8}}
	got := maxAssignment(s, 2, 3)
	if total := s[0][got[0]] + s[1][got[1]]; math.Abs(total-1.85) > 1e-12 {
		t.Errorf("assignment %v total %v, want 1.85", got, total)
	}
}
