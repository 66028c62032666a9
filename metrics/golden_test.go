package metrics

import (
	"encoding/json"
	"math"
	"os"
	"reflect"
	"testing"

	"github.com/goeval/goeval/internal/py"
)

// golden is testdata/golden.json, written by parity/metrics/golden.py from
// lm-eval's own functions (exact_match_hf_evaluate, RegexFilter, drop/utils,
// api/metrics aggregations and bootstrap_stderr) and CPython str methods.
type golden struct {
	ExactMatch []struct {
		Pred, Ref string
		Regexes   []string
		Ic, Ip    bool
		Inum      bool
		Score     float64
	} `json:"exact_match"`
	RegexFilter []struct {
		Pattern     string
		GroupSelect int `json:"group_select"`
		Resp, Out   string
	} `json:"regex_filter"`
	Drop []struct {
		Pred  string
		Golds [][]string
		Em    float64
		F1    float64
	}
	DropMulti []struct {
		Pred, Gold []string
		Em, F1     float64
	} `json:"drop_multi"`
	DropNormalize []struct{ S, Out string } `json:"drop_normalize"`
	PyFloat       []struct {
		S    string
		Repr *string
	} `json:"pyfloat"`
	Repr []struct {
		F    float64
		Repr string
	}
	Agg    map[string]float64
	Inputs struct {
		Xs, Lls []float64
		Pairs   [][2]float64
		Wpairs  [][2]float64
	}
	SacreBLEU []struct {
		Pairs       [][2]string
		BLEU        float64  `json:"bleu"`
		ChrF        float64  `json:"chrf"`
		TER         float64  `json:"ter"`
		BootTER100  *float64 `json:"boot_ter_100"`
		BootChrF100 *float64 `json:"boot_chrf_100"`
		BootBLEU100 *float64 `json:"boot_bleu_100"`
	} `json:"sacrebleu"`
	PyStr []struct {
		S, Strip, Lower, Upper, Capitalize string
		Split                              []string
	} `json:"pystr"`
}

func loadGolden(t *testing.T) *golden {
	t.Helper()
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

func TestGoldenExactMatch(t *testing.T) {
	for _, c := range loadGolden(t).ExactMatch {
		got, err := ExactMatch(c.Pred, c.Ref, ExactMatchOptions{RegexesToIgnore: c.Regexes, IgnoreCase: c.Ic, IgnorePunctuation: c.Ip, IgnoreNumbers: c.Inum})
		if err != nil {
			t.Fatal(err)
		}
		if got != c.Score {
			t.Errorf("exact_match(%q, %q, %v ic=%v ip=%v in=%v) = %v, lm-eval %v", c.Pred, c.Ref, c.Regexes, c.Ic, c.Ip, c.Inum, got, c.Score)
		}
	}
}

func TestGoldenRegexFilter(t *testing.T) {
	for _, c := range loadGolden(t).RegexFilter {
		f, err := NewRegexFilter(c.Pattern, c.GroupSelect, DefaultRegexFallback)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Apply(c.Resp); got != c.Out {
			t.Errorf("regex %q group %d on %q = %q, lm-eval %q", c.Pattern, c.GroupSelect, c.Resp, got, c.Out)
		}
	}
}

func TestGoldenDrop(t *testing.T) {
	g := loadGolden(t)
	for _, c := range g.Drop {
		em, f1 := DropEMF1(c.Pred, c.Golds)
		if em != c.Em || f1 != c.F1 {
			t.Errorf("drop(%q, %q) = em %v f1 %v, lm-eval %v %v", c.Pred, c.Golds, em, f1, c.Em, c.F1)
		}
	}
	for _, c := range g.DropMulti {
		em, f1 := DropMetrics(c.Pred, c.Gold)
		if em != c.Em || f1 != c.F1 {
			t.Errorf("get_metrics(%q, %q) = em %v f1 %v, lm-eval %v %v", c.Pred, c.Gold, em, f1, c.Em, c.F1)
		}
	}
	for _, c := range g.DropNormalize {
		if got := DropNormalize(c.S); got != c.Out {
			t.Errorf("_normalize(%q) = %q, lm-eval %q", c.S, got, c.Out)
		}
	}
}

func TestGoldenPyFloat(t *testing.T) {
	g := loadGolden(t)
	for _, c := range g.PyFloat {
		v, ok := py.ParseFloat(c.S)
		if ok != (c.Repr != nil) {
			t.Errorf("float(%q) ok=%v, Python ok=%v", c.S, ok, c.Repr != nil)
			continue
		}
		if ok && py.Repr(v) != *c.Repr {
			t.Errorf("repr(float(%q)) = %q, Python %q", c.S, py.Repr(v), *c.Repr)
		}
	}
	for _, c := range g.Repr {
		if got := py.Repr(c.F); got != c.Repr {
			t.Errorf("repr(%v) = %q, Python %q", c.F, got, c.Repr)
		}
	}
}

func TestGoldenPyStr(t *testing.T) {
	for _, c := range loadGolden(t).PyStr {
		split := py.Split(c.S)
		if split == nil {
			split = []string{}
		}
		if py.Strip(c.S) != c.Strip || py.Lower(c.S) != c.Lower || py.Upper(c.S) != c.Upper ||
			py.Capitalize(c.S) != c.Capitalize || !reflect.DeepEqual(split, c.Split) {
			t.Errorf("%q: strip %q lower %q upper %q capitalize %q split %q; Python %q %q %q %q %q",
				c.S, py.Strip(c.S), py.Lower(c.S), py.Upper(c.S), py.Capitalize(c.S), split,
				c.Strip, c.Lower, c.Upper, c.Capitalize, c.Split)
		}
	}
}

func floats(xs []float64) []Value {
	out := make([]Value, len(xs))
	for i, x := range xs {
		out[i] = Float(x)
	}
	return out
}

func pairs(ps [][2]float64) []Value {
	out := make([]Value, len(ps))
	for i, p := range ps {
		out[i] = Pair(p[0], p[1])
	}
	return out
}

// close12 compares to 1e-12 relative (Python 3.12+ compensates its float
// sums, so summation order may differ in the last ulp); most values below match exactly.
func close12(a, b float64) bool { return a == b || math.Abs(a-b) <= 1e-12*math.Abs(b) }

func TestGoldenAggregations(t *testing.T) {
	g := loadGolden(t)
	in := g.Inputs
	check := func(name string, got float64, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !close12(got, g.Agg[name]) {
			t.Errorf("%s = %.17g, lm-eval %.17g", name, got, g.Agg[name])
		}
	}
	v, err := Aggregate(AggMean, floats(in.Xs))
	check("mean", v, err)
	v, err = Aggregate(AggMedian, floats(in.Xs))
	check("median", v, err)
	v, err = Aggregate(AggPerplexity, floats(in.Lls))
	check("perplexity", v, err)
	v, err = Aggregate(AggWeightedPerplexity, pairs(in.Wpairs))
	check("weighted_perplexity", v, err)
	v, err = Aggregate(AggBitsPerByte, pairs(in.Wpairs))
	check("bits_per_byte", v, err)
	v, err = Aggregate(AggF1, pairs(in.Pairs))
	check("f1", v, err)
	v, err = Aggregate(AggMCC, pairs(in.Pairs))
	check("mcc", v, err)
	check("mcc3", MatthewsCorrcoef([][2]float64{{0, 0}, {1, 2}, {2, 2}, {2, 1}, {1, 1}, {0, 2}}), nil)
	check("pooled", PooledSampleStderr([]float64{0.05, 0.02, 0.1}, []int{100, 400, 19}), nil)
	check("unweighted", UnweightedMeanStderr([]float64{0.05, 0.02, 0.1}), nil)
	stats := []SubtaskStat{{0.3, 0.05, true, 100}, {0.6, 0.02, true, 400}, {0.45, 0.1, true, 19}}
	val, _, _ := GroupAggregate(stats, true)
	check("subtask_weighted", val, nil)
	val, _, _ = GroupAggregate(stats, false)
	check("subtask_macro", val, nil)
}

func TestGoldenStderr(t *testing.T) {
	g := loadGolden(t)
	in := g.Inputs
	cases := []struct {
		key, agg string
		vals     []Value
		iters    int
	}{
		{"mean_stderr", AggMean, floats(in.Xs), 100000},
		{"boot_perplexity_100000", AggPerplexity, floats(in.Lls), 100000},
		{"boot_median_1500", AggMedian, floats(in.Xs), 1500},
		{"boot_median_250", AggMedian, floats(in.Xs), 250},
		{"boot_f1_3000", AggF1, pairs(in.Pairs), 3000},
		{"boot_mcc_2000", AggMCC, pairs(in.Pairs), 2000},
	}
	for _, c := range cases {
		se, ok, err := Stderr(c.agg, c.vals, c.iters)
		if err != nil || !ok {
			t.Fatalf("%s: ok=%v err=%v", c.key, ok, err)
		}
		if !close12(se, g.Agg[c.key]) {
			t.Errorf("%s = %.17g, lm-eval %.17g", c.key, se, g.Agg[c.key])
		}
	}
}

// TestGoldenSacreBLEU compares corpus BLEU, chrF and TER, and their bootstrap
// stderrs at lm-eval's 100 resamples, with lm-eval's bleu and chrf
// aggregations (sacrebleu).
func TestGoldenSacreBLEU(t *testing.T) {
	g := loadGolden(t)
	if len(g.SacreBLEU) == 0 {
		t.Fatal("no sacrebleu cases in the golden")
	}
	for i, c := range g.SacreBLEU {
		vals := make([]Value, len(c.Pairs))
		for j, p := range c.Pairs {
			vals[j] = Text(p[0], p[1])
		}
		for _, m := range []struct {
			agg      string
			want     float64
			wantBoot *float64
		}{{AggBLEU, c.BLEU, c.BootBLEU100}, {AggChrF, c.ChrF, c.BootChrF100}, {AggTER, c.TER, c.BootTER100}} {
			got, err := Aggregate(m.agg, vals)
			if err != nil || !close12(got, m.want) {
				t.Errorf("case %d %s = %.17g (err %v), lm-eval %.17g", i, m.agg, got, err, m.want)
			}
			se, ok, err := Stderr(m.agg, vals, 100)
			switch {
			case err != nil:
				t.Errorf("case %d %s stderr: %v", i, m.agg, err)
			case m.wantBoot == nil && ok:
				t.Errorf("case %d %s stderr %v, lm-eval N/A", i, m.agg, se)
			case m.wantBoot != nil && (!ok || !close12(se, *m.wantBoot)):
				t.Errorf("case %d %s stderr = %.17g (ok %v), lm-eval %.17g", i, m.agg, se, ok, *m.wantBoot)
			}
		}
	}
}
