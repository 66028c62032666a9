package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/internal/testutil/fixturemodel"
	"github.com/goeval/goeval/report"
)

// adapterRun is one model folder of a run: its results and samples.
type adapterRun struct {
	res     *report.Results
	samples []report.Sample
}

// readAdapterRun reads the one results file and arc_easy samples file in
// out/<sanitized name>.
func readAdapterRun(t *testing.T, out, name string) adapterRun {
	t.Helper()
	dir := filepath.Join(out, report.SanitizeModelName(name))
	res, _ := filepath.Glob(filepath.Join(dir, "results_*.json"))
	smp, _ := filepath.Glob(filepath.Join(dir, "samples_arc_easy_*.jsonl"))
	if len(res) != 1 || len(smp) != 1 {
		t.Fatalf("%s: results %v, samples %v; want one of each", dir, res, smp)
	}
	r, err := report.ReadResults(res[0])
	if err != nil {
		t.Fatal(err)
	}
	s, err := report.ReadSamples(smp[0])
	if err != nil {
		t.Fatal(err)
	}
	return adapterRun{r, s}
}

// folders lists the sub-folders of out.
func folders(t *testing.T, out string) []string {
	t.Helper()
	ents, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}

// leaves flattens a samples file's resps (strings once read back) in order.
func leaves(v any, out []string) []string {
	switch x := v.(type) {
	case []any:
		for _, y := range x {
			out = leaves(y, out)
		}
	default:
		out = append(out, fmt.Sprint(x))
	}
	return out
}

// respsDiff returns the largest |Δ| between the log-likelihoods of two
// runs' samples; non-numeric leaves (is_greedy) must be equal.
func respsDiff(t *testing.T, a, b []report.Sample) float64 {
	t.Helper()
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("%d vs %d sample rows", len(a), len(b))
	}
	worst := 0.0
	for i := range a {
		la, lb := leaves(a[i].Resps, nil), leaves(b[i].Resps, nil)
		if a[i].DocID != b[i].DocID || len(la) != len(lb) {
			t.Fatalf("row %d: doc %d/%d, %d/%d responses", i, a[i].DocID, b[i].DocID, len(la), len(lb))
		}
		for j := range la {
			x, errA := strconv.ParseFloat(la[j], 64)
			y, errB := strconv.ParseFloat(lb[j], 64)
			switch {
			case errA == nil && errB == nil:
				worst = math.Max(worst, math.Abs(x-y))
			case la[j] != lb[j]:
				t.Errorf("row %d response %d: %q vs %q", i, j, la[j], lb[j])
			}
		}
	}
	return worst
}

// modelArgs returns a run's config.model_args.
func modelArgs(t *testing.T, r *report.Results) *py.Map[any] {
	t.Helper()
	v, _ := r.Config.Get("model_args")
	args, ok := v.(*py.Map[any])
	if !ok {
		t.Fatalf("config.model_args = %#v", v)
	}
	return args
}

// TestRunAdapters runs goeval run on the tiny Qwen2 fixture with its LoRA
// adapter: separate mode (base + adapter, one load) writes two results
// folders, the adapter's numbers equal a run of the pre-merged checkpoint
// to ≤ 1e-5, and merged mode with --skip-base writes only the adapter's.
func TestRunAdapters(t *testing.T) {
	tmp := t.TempDir()
	base, lora, merged := fixturemodel.Model(t, fixturemodel.Base), fixturemodel.AdapterDir(t), fixturemodel.Model(t, fixturemodel.Merged)
	data := filepath.Join(tmp, "data")
	if _, stderr, code := goeval(t, "synth", "data", "--task", "arc_easy", "--out", data); code != 0 {
		t.Fatalf("synth data: exit %d: %s", code, stderr)
	}
	run := func(out string, args ...string) string {
		t.Helper()
		args = append([]string{"run", "--tasks", "arc_easy", "--data-dir", data, "--limit", "5", "--bootstrap-iters", "0",
			"--log-samples", "--output-path", out}, args...)
		_, stderr, code := goeval(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		return stderr
	}
	sepOut, refOut, mrgOut := filepath.Join(tmp, "sep"), filepath.Join(tmp, "ref"), filepath.Join(tmp, "mrg")
	if stderr := run(sepOut, "--model", base, "--adapter", lora); !strings.Contains(stderr, "separate adapter mode") {
		t.Errorf("base + adapter did not use separate mode; stderr: %s", stderr)
	}
	run(refOut, "--model", merged)
	run(mrgOut, "--model", base, "--adapter", lora, "--skip-base", "--adapter-mode", "merged")

	want := []string{report.SanitizeModelName(base), report.SanitizeModelName(lora)}
	sorted := append([]string(nil), want...)
	sort.Strings(sorted) // folders are listed by name
	if got := folders(t, sepOut); strings.Join(got, ",") != strings.Join(sorted, ",") {
		t.Fatalf("separate run folders %v, want %v", got, sorted)
	}
	if got := folders(t, mrgOut); len(got) != 1 || got[0] != want[1] {
		t.Fatalf("--skip-base run folders %v, want [%s]", got, want[1])
	}
	baseRun, sepRun := readAdapterRun(t, sepOut, base), readAdapterRun(t, sepOut, lora)
	refRun, mrgRun := readAdapterRun(t, refOut, merged), readAdapterRun(t, mrgOut, lora)

	args := modelArgs(t, sepRun.res)
	if p, _ := args.Get("pretrained"); p != base {
		t.Errorf("adapter model_args pretrained = %v, want %s", p, base)
	}
	if p, _ := args.Get("peft"); p != lora || sepRun.res.ModelName != lora {
		t.Errorf("adapter model_args peft = %v, model_name %q; want %s", p, sepRun.res.ModelName, lora)
	}
	if _, ok := modelArgs(t, baseRun.res).Get("peft"); ok || baseRun.res.ModelName != base {
		t.Errorf("base run: model_name %q, model_args %v", baseRun.res.ModelName, modelArgs(t, baseRun.res).Keys())
	}
	for name, r := range map[string]adapterRun{"separate": sepRun, "merged --skip-base": mrgRun} {
		if d := respsDiff(t, r.samples, refRun.samples); d > 1e-5 {
			t.Errorf("%s adapter run vs pre-merged checkpoint: max |Δ log-likelihood| %g > 1e-5", name, d)
		}
		for _, k := range []string{"acc,none", "acc_norm,none"} {
			got, _ := r.res.Results.Get("arc_easy")
			ref, _ := refRun.res.Results.Get("arc_easy")
			a, okA := got.Float(k)
			b, okB := ref.Float(k)
			if !okA || !okB || a != b {
				t.Errorf("%s %s = %v, pre-merged %v", name, k, a, b)
			}
		}
	}
	if d := respsDiff(t, baseRun.samples, sepRun.samples); d < 1e-3 {
		t.Errorf("base and adapter log-likelihoods differ by at most %g: the adapter was not applied", d)
	}
}

// TestRunAdapterBadInput checks that misused adapter flags exit 2.
func TestRunAdapterBadInput(t *testing.T) {
	base, lora := fixturemodel.Model(t, fixturemodel.Base), fixturemodel.AdapterDir(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "fake", "--adapter", lora}, "not \"fake\""},
		{[]string{"--model", base, "--skip-base"}, "--skip-base needs"},
		{[]string{"--model", base, "--adapter", lora, "--adapter-mode", "fused"}, "--adapter-mode \"fused\""},
		{[]string{"--model", base, "--adapter", lora, "--adapter", lora}, "given twice"},
		{[]string{"--model", base + "," + fixturemodel.Model(t, fixturemodel.Merged), "--adapter", lora}, "one base model"},
		{[]string{"--model", base, "--adapter", filepath.Join(t.TempDir(), "no-such-adapter")}, "no adapter_config.json"},
	} {
		full := append([]string{"run", "--tasks", "arc_easy"}, c.args...)
		_, stderr, code := goeval(t, full...)
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line with %q", strings.Join(full, " "), code, stderr, c.want)
		}
	}
}
