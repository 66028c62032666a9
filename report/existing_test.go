package report

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/goeval/goeval/internal/py"
)

// existingRun writes a results file (and one samples file) for model m
// with settings s and tasks a (2-shot) and b (0-shot) at ts.
func existingRun(t *testing.T, out string, s RunSettings, extra map[string]any, ts time.Time) string {
	t.Helper()
	r := &Results{ModelName: "dir/m", Config: *RunConfig(s)}
	for task, n := range map[string]int{"a": 2, "b": 0} {
		e := py.NewMap[any]()
		e.Set("acc,none", 0.5)
		r.Results.Set(task, e)
		r.Configs.Set(task, py.NewMap[any]())
		r.NShot.Set(task, n)
	}
	for k, v := range extra {
		r.Extra.Set(k, v)
	}
	samples := map[string][]Sample{"a": {{DocID: 0, Doc: map[string]any{"q": "x"}, Target: "y"}}}
	path, err := WriteRun(out, r, samples, ts)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFindRun(t *testing.T) {
	out := t.TempDir()
	s := RunSettings{Model: "dir/m", DType: "float32", BatchSize: 8, Device: "cpu", Limit: 4,
		BootstrapIters: 10, Seeds: seeds(0, 1234, 1234, 1234)}
	want := RunWant{Config: RunConfig(s), NShot: map[string]int{"a": 2, "b": 0}}
	if _, ok, err := FindRun(out, "dir/m", want); ok || err != nil {
		t.Fatalf("empty folder: ok %v err %v", ok, err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	old := existingRun(t, out, s, nil, t0)
	newer := existingRun(t, out, s, nil, t0.Add(time.Hour))
	if p, ok, err := FindRun(out, "dir/m", want); !ok || err != nil || p != newer {
		t.Fatalf("FindRun = %q, %v, %v; want %q", p, ok, err, newer)
	}
	batch := s
	batch.BatchSize = "auto" // does not change numbers
	if _, ok, _ := FindRun(out, "dir/m", RunWant{Config: RunConfig(batch), NShot: want.NShot}); !ok {
		t.Error("another batch size is not the same run")
	}
	for name, w := range map[string]RunWant{
		"other model":   {Config: want.Config, NShot: want.NShot, Extra: nil},
		"limit":         {Config: RunConfig(with(s, func(s *RunSettings) { s.Limit = 5 })), NShot: want.NShot},
		"dtype":         {Config: RunConfig(with(s, func(s *RunSettings) { s.DType = "bfloat16" })), NShot: want.NShot},
		"fewshot seed":  {Config: RunConfig(with(s, func(s *RunSettings) { s.Seeds.Fewshot = seeds(1, 1, 1, 1).Fewshot })), NShot: want.NShot},
		"gen kwargs":    {Config: RunConfig(with(s, func(s *RunSettings) { s.GenKwargs = map[string]any{"temperature": 0.5} })), NShot: want.NShot},
		"n-shot":        {Config: want.Config, NShot: map[string]int{"a": 3, "b": 0}},
		"fewer tasks":   {Config: want.Config, NShot: map[string]int{"a": 2}},
		"more tasks":    {Config: want.Config, NShot: map[string]int{"a": 2, "b": 0, "c": 0}},
		"system prompt": {Config: want.Config, NShot: want.NShot, Extra: map[string]any{"system_instruction": "Be brief."}},
	} {
		model := "dir/m"
		if name == "other model" {
			model = "dir/n"
		}
		if p, ok, err := FindRun(out, model, w); ok || err != nil {
			t.Errorf("%s: FindRun matched %q (err %v)", name, p, err)
		}
	}
	chat := existingRun(t, out, s, map[string]any{"chat_template": "{{x}}", "fewshot_as_multiturn": true}, t0.Add(2*time.Hour))
	if p, _, _ := FindRun(out, "dir/m", want); p != newer {
		t.Errorf("a run without a chat template matched %s, want %s", p, newer)
	}
	if p, _, _ := FindRun(out, "dir/m", RunWant{Config: want.Config, NShot: want.NShot,
		Extra: map[string]any{"chat_template": "{{x}}", "fewshot_as_multiturn": true}}); p != chat {
		t.Errorf("a run with a chat template matched %q, want %s", p, chat)
	}
	if _, err := RemoveRun(chat); err != nil {
		t.Fatal(err)
	}
	dot := existingRun(t, out, s, map[string]any{BackendKey: "gocpu:bf16=dot"}, t0.Add(3*time.Hour))
	if p, _, _ := FindRun(out, "dir/m", want); p != newer {
		t.Errorf("a run on another backend spec matched %s, want %s", p, newer)
	}
	if p, _, _ := FindRun(out, "dir/m", RunWant{Config: want.Config, NShot: want.NShot,
		Extra: map[string]any{BackendKey: "gocpu:bf16=dot"}}); p != dot {
		t.Errorf("a run with the backend spec matched %q, want %s", p, dot)
	}
	if _, err := RemoveRun(dot); err != nil {
		t.Fatal(err)
	}
	all, err := MatchingRuns(out, "dir/m", want)
	if err != nil || len(all) != 2 || all[0] != old {
		t.Fatalf("MatchingRuns = %q, %v", all, err)
	}
	removed, err := RemoveRun(old)
	if err != nil || len(removed) != 2 {
		t.Fatalf("RemoveRun removed %q (err %v), want the results and one samples file", removed, err)
	}
	for _, p := range removed {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s still exists", p)
		}
	}
	left, _ := filepath.Glob(filepath.Join(out, "dir__m", "*"))
	if len(left) != 2 {
		t.Errorf("after removing the old run %d files are left, want the newer run's 2: %q", len(left), left)
	}
}

func with(s RunSettings, f func(*RunSettings)) RunSettings {
	f(&s)
	return s
}

// seeds are the four seeds given.
func seeds(random, numpy, torch, fewshot int64) Seeds {
	return Seeds{Random: &random, NumPy: &numpy, Torch: &torch, Fewshot: &fewshot}
}
