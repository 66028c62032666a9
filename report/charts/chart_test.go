package charts

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/report"
	"gonum.org/v1/plot/vg"
)

// mmluLike are long task names as the charts must show them in full.
var mmluLike = []string{"mmlu_high_school_government_and_politics", "mmlu_professional_accounting",
	"mmlu_college_computer_science", "mmlu_world_religions", "mmlu_abstract_algebra", "arc_challenge",
	"hellaswag", "gsm8k", "winogrande", "piqa"}

// synthComparison builds a comparison of nTasks tasks (two metrics each,
// acc and acc_norm) over the runs, with a group "mmlu" over the mmlu-named
// tasks when group is set.
func synthComparison(nTasks int, runs []string, group bool) *report.Comparison {
	rng := rand.New(rand.NewPCG(1, 2))
	c := &report.Comparison{Runs: runs, Groups: map[string][]string{}}
	var subs []string
	for i := range nTasks {
		task := fmt.Sprintf("%s_%d", mmluLike[i%len(mmluLike)], i)
		if group && i%len(mmluLike) < 5 {
			subs = append(subs, task)
		}
		for _, m := range []string{"acc", "acc_norm"} {
			c.Rows = append(c.Rows, synthRow(rng, task, m, len(runs)))
		}
	}
	if group {
		c.Groups["mmlu"] = subs
		c.Rows = append(c.Rows, synthRow(rng, "mmlu", "acc", len(runs)))
	}
	return c
}

func synthRow(rng *rand.Rand, task, metric string, n int) report.Row {
	r := report.Row{Task: task, Metric: metric, Filter: "none", Key: metric + ",none", HigherIsBetter: true}
	base := rng.Float64()
	for j := range n {
		v := math.Min(1, math.Max(0, base+0.15*(rng.Float64()-0.4)*float64(j)/float64(n)))
		// Large stderrs near the ends: whiskers must be clipped.
		r.Cells = append(r.Cells, report.Cell{Value: v, OK: true, Stderr: 0.02 + 0.1*rng.Float64(), StderrOK: true})
	}
	r.Changes = make([]report.Change, n)
	for j := 1; j < n; j++ {
		d := r.Cells[j].Value - r.Cells[0].Value
		half := 0.03 + 0.05*rng.Float64()
		r.Changes[j] = report.Change{Abs: d, Low: d - half, High: d + half, Significant: math.Abs(d) > half, Test: "mcnemar"}
	}
	return r
}

func runNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, (i+1)*500)
	}
	return out
}

// checkLayout asserts that no two texts overlap, every text lies inside
// the image, and every whisker inside its panel.
func checkLayout(t *testing.T, name string, ch *Chart) {
	t.Helper()
	const eps = 0.01
	img := vg.Rectangle{Max: vg.Point{X: ch.W, Y: ch.H}}
	boxes := make([]vg.Rectangle, len(ch.Texts))
	for i, tx := range ch.Texts {
		b := tx.Box()
		boxes[i] = b
		if b.Min.X < img.Min.X-eps || b.Min.Y < img.Min.Y-eps || b.Max.X > img.Max.X+eps || b.Max.Y > img.Max.Y+eps {
			t.Errorf("%s: text %q (%v) is clipped by the image %v", name, tx.Str, b, img)
		}
	}
	for i := range boxes {
		for j := i + 1; j < len(boxes); j++ {
			a, b := boxes[i], boxes[j]
			if a.Min.X < b.Max.X-eps && b.Min.X < a.Max.X-eps && a.Min.Y < b.Max.Y-eps && b.Min.Y < a.Max.Y-eps {
				t.Errorf("%s: texts %q and %q overlap", name, ch.Texts[i].Str, ch.Texts[j].Str)
			}
		}
	}
	whiskers := 0
	for _, m := range ch.Marks {
		if m.Kind != "whisker" {
			continue
		}
		whiskers++
		p := ch.Panels[m.Panel]
		for _, pt := range m.Pts {
			if pt.X < p.Min.X-eps || pt.X > p.Max.X+eps || pt.Y < p.Min.Y-eps || pt.Y > p.Max.Y+eps {
				t.Errorf("%s: whisker point %v outside its panel %v", name, pt, p)
			}
		}
	}
	if len(ch.Texts) < 5 {
		t.Errorf("%s: only %d texts", name, len(ch.Texts))
	}
	saveChart(t, name, ch)
}

// saveChart renders the chart (PNG decodes, SVG non-empty); with
// GOEVAL_PLOT_DIR set the PNGs are kept there to look at.
func saveChart(t *testing.T, name string, ch *Chart) {
	t.Helper()
	b, err := ch.Render("png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if got, want := img.Bounds().Dy(), int(ch.H.Points()*2); got < want-2 {
		t.Errorf("%s: image height %d px, want ≈ %d", name, got, want)
	}
	if svg, err := ch.Render("svg"); err != nil || len(svg) < 1000 {
		t.Errorf("%s: svg: %d bytes, %v", name, len(svg), err)
	}
	if d := os.Getenv("GOEVAL_PLOT_DIR"); d != "" {
		if err := os.WriteFile(filepath.Join(d, name+".png"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestChartsLayout(t *testing.T) {
	runs3 := []string{"base", "sft", "sft+dpo"}
	for _, n := range []int{5, 60} {
		c := synthComparison(n, runs3, n > 5)
		for _, expand := range []bool{false, true} {
			o := Options{ExpandGroups: expand}
			sc, err := ScoresChart(c, o)
			if err != nil {
				t.Fatal(err)
			}
			checkLayout(t, fmt.Sprintf("scores_%d_expand%v", n, expand), sc)
			cc, err := CompareChart(c, o)
			if err != nil {
				t.Fatal(err)
			}
			checkLayout(t, fmt.Sprintf("compare_%d_expand%v", n, expand), cc)
		}
	}
	for _, n := range []int{5, 60} {
		c := synthComparison(n, runNames("checkpoint-", 20), n > 5)
		for _, topK := range []int{0, -1} {
			sw, err := SweepChart(c, Options{TopK: topK})
			if err != nil {
				t.Fatal(err)
			}
			checkLayout(t, fmt.Sprintf("sweep_%d_top%d", n, topK), sw)
		}
	}
}

func TestChartRowsPrimaryAndGroups(t *testing.T) {
	c := synthComparison(10, []string{"a", "b"}, true)
	rows, _, err := chartRows(c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// 5 mmlu-named tasks collapse into the group: 5 tasks + the group.
	if len(rows) != 6 {
		t.Fatalf("%d rows, want 6", len(rows))
	}
	groups := 0
	for _, r := range rows {
		if r.Group {
			groups++
			if r.Row.Metric != "acc" {
				t.Errorf("group row metric %s", r.Row.Metric)
			}
		} else if r.Row.Metric != "acc_norm" {
			t.Errorf("%s: primary metric %s, want acc_norm", r.Label, r.Row.Metric)
		}
	}
	if groups != 1 {
		t.Errorf("%d group rows", groups)
	}
	for i := 1; i < len(rows); i++ { // sorted by the last run's change
		if a, b := rows[i-1].Row.Changes[1].Abs, rows[i].Row.Changes[1].Abs; a < b {
			t.Errorf("rows not sorted by change: %v before %v", a, b)
		}
	}
	exp, _, _ := chartRows(c, Options{ExpandGroups: true, Metric: "acc"})
	if len(exp) != 10 {
		t.Errorf("expanded: %d rows, want 10 subtasks and tasks", len(exp))
	}
	if _, _, err := chartRows(c, Options{Metric: "f1"}); err == nil {
		t.Error("a metric no task has was accepted")
	}
}

func TestCheckpointSteps(t *testing.T) {
	if got := checkpointSteps([]string{"out/checkpoint-500", "out/checkpoint-1000", "out/checkpoint-5000"}); len(got) != 3 || got[2] != 5000 {
		t.Errorf("steps = %v", got)
	}
	if got := checkpointSteps([]string{"base", "tuned"}); got != nil {
		t.Errorf("names without steps gave %v", got)
	}
	if got := checkpointSteps([]string{"step-2", "step-1"}); got != nil {
		t.Errorf("decreasing steps gave %v", got)
	}
}

// TestChartsWithNaN: a run whose numerics broke (NaN values, NaN
// intervals) is drawn as "nan" and never breaks a chart's layout.
func TestChartsWithNaN(t *testing.T) {
	c := synthComparison(6, []string{"base", "broken", "ok"}, false)
	for i := range c.Rows {
		c.Rows[i].Cells[1].Value = math.NaN()
		ch := &c.Rows[i].Changes[1]
		ch.Abs, ch.Low, ch.High, ch.Significant = math.NaN(), math.NaN(), math.NaN(), false
	}
	for name, draw := range map[string]func(*report.Comparison, Options) (*Chart, error){
		"scores": ScoresChart, "compare": CompareChart, "sweep": SweepChart} {
		ch, err := draw(c, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkLayout(t, name+"_nan", ch)
	}
}
