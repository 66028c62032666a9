package goeval_test

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/report"
)

// Comparison rules of parity/e2e/compare.py, which holds the rationale.
const (
	llAbs  = 1e-4  // loglikelihoods (resps, perplexity sample values)
	aggRel = 1e-12 // aggregates whose per-sample values are identical
	pplRel = 1e-4  // perplexity-type aggregates
	tieAbs = 1e-3  // a differing acc is allowed when the top two lls are this close
)

// expectedKeyDiffs are keys only one side writes: lm-eval's Python
// environment dumps, and goeval's own version (where lm-eval writes
// lm_eval_version) and what its engine ran (goeval_timing). Every other
// key must be in both files, in order.
var expectedKeyDiffs = map[string]bool{
	".pretty_env_info": true, ".transformers_version": true, ".lm_eval_version": true, ".upper_git_hash": true,
	"." + report.VersionKey: true, "." + report.TimingKey: true, "." + report.ThinkingKey: true,
}

// goevalSampleKeys are the samples-file keys only goeval writes: a
// generation's reasoning and its token counts (Options.Thinking).
var goevalSampleKeys = map[string]bool{report.ReasoningKey: true, report.ReasoningTokensKey: true,
	report.AnswerTokensKey: true}

// runSpecific values name the engine or the run and differ by design:
// timings, dates, commits, the model source and type, the batch size
// given, and each task's config source (lm-eval's YAML path, goeval's
// built-in task).
var runSpecific = map[string]bool{"date": true, "total_evaluation_time_seconds": true, "git_hash": true,
	"model_source": true, "config.model": true, "config.batch_size": true, "configs.*.metadata.config_source": true}

var pplMetrics = []string{"perplexity", "word_perplexity", "byte_perplexity", "bits_per_byte"}

type cmp struct{ problems, notes []string }

func (c *cmp) fail(format string, a ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, a...))
}

func generic(path string) string {
	parts := strings.Split(path, ".")
	if len(parts) >= 2 && (parts[0] == "configs" || parts[0] == "results" || parts[0] == "groups") {
		parts[1] = "*"
	}
	return strings.Join(parts, ".")
}

// keys checks that want and got have the same keys in the same order,
// ignoring expectedKeyDiffs.
func (c *cmp) keys(path string, want, got *py.Map[any]) {
	filter := func(m *py.Map[any]) []string {
		var out []string
		for _, k := range m.Keys() {
			if !expectedKeyDiffs[generic(path)+"."+k] && !(strings.HasPrefix(path, "samples ") && goevalSampleKeys[k]) {
				out = append(out, k)
			}
		}
		return out
	}
	if kw, kg := filter(want), filter(got); !slices.Equal(kw, kg) {
		c.fail("%s: keys differ: lm-eval %v goeval %v", path, kw, kg)
	}
}

// tree compares structure and values; num decides numbers (nil: exact,
// Python int/float spelling included).
func (c *cmp) tree(path string, want, got any, num func(path string, w, g json.Number)) {
	switch w := want.(type) {
	case *py.Map[any]:
		g, ok := got.(*py.Map[any])
		if !ok {
			c.fail("%s: lm-eval an object, goeval %T", path, got)
			return
		}
		c.keys(path, w, g)
		for _, k := range w.Keys() {
			wv, _ := w.Get(k)
			if gv, ok := g.Get(k); ok {
				c.tree(strings.TrimPrefix(path+"."+k, "."), wv, gv, num)
			}
		}
		return
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			c.fail("%s: lm-eval %s goeval %s", path, short(want), short(got))
			return
		}
		for i := range w {
			c.tree(fmt.Sprintf("%s[%d]", path, i), w[i], g[i], num)
		}
		return
	}
	if runSpecific[path] || runSpecific[generic(path)] {
		return
	}
	wn, wok := want.(json.Number)
	gn, gok := got.(json.Number)
	if wok && gok && num != nil {
		num(path, wn, gn)
		return
	}
	if fmt.Sprint(want) != fmt.Sprint(got) || fmt.Sprintf("%T", want) != fmt.Sprintf("%T", got) {
		c.fail("%s: lm-eval %s goeval %s", path, short(want), short(got))
	}
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 120 {
		return string(b[:117]) + "..."
	}
	return string(b)
}

func f64(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case string:
		if !strings.ContainsAny(x, ".eE") {
			return 0, false // "False", "1": not a loglikelihood
		}
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	return 0, false
}

// llClose is resps equality with loglikelihood strings within llAbs.
func llClose(want, got any) bool {
	if w, ok := want.([]any); ok {
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !llClose(w[i], g[i]) {
				return false
			}
		}
		return true
	}
	wf, wok := f64(want)
	gf, gok := f64(got)
	if wok && gok {
		return math.Abs(wf-gf) <= llAbs
	}
	return want == got
}

// samples compares one task's rows; it returns whether every per-sample
// metric value is identical.
func (c *cmp) samples(task string, want, got []any) bool {
	if len(want) != len(got) {
		c.fail("samples %s: %d rows vs %d", task, len(want), len(got))
		return false
	}
	identical := true
	for i := range want {
		w, g := want[i].(*py.Map[any]), got[i].(*py.Map[any])
		id, _ := w.Get("doc_id")
		filter, _ := w.Get("filter")
		p := fmt.Sprintf("samples %s doc %v %v", task, id, filter)
		c.keys(p, w, g)
		mv, _ := w.Get("metrics")
		names, _ := mv.([]any)
		for _, k := range w.Keys() {
			wv, _ := w.Get(k)
			gv, ok := g.Get(k)
			switch {
			case !ok:
			case k == "resps" || k == "filtered_resps":
				if !llClose(wv, gv) {
					c.fail("%s.%s: lm-eval %s goeval %s", p, k, short(wv), short(gv))
				}
			case slices.Contains(names, any(k)):
				identical = c.metricValue(p, k, w, wv, gv) && identical
			default:
				c.tree(p+"."+k, wv, gv, nil)
			}
		}
	}
	return identical
}

// metricValue compares a per-sample metric value.
func (c *cmp) metricValue(p, k string, row *py.Map[any], want, got any) bool {
	if w, ok := want.([]any); ok && len(w) == 2 && isJSONNumber(w[0]) { // (ll, weight) pairs
		g, _ := got.([]any)
		wf, _ := f64(w[0])
		var gf float64
		if len(g) == 2 {
			gf, _ = f64(g[0])
		}
		if len(g) != 2 || math.Abs(wf-gf) > llAbs || fmt.Sprint(w[1]) != fmt.Sprint(g[1]) {
			c.fail("%s.%s: lm-eval %s goeval %s", p, k, short(want), short(got))
		}
		return false
	}
	if fmt.Sprint(want) == fmt.Sprint(got) {
		return true
	}
	wf, wok := f64(want)
	gf, gok := f64(got)
	if slices.Contains(pplMetrics, k) && wok && gok {
		if math.Abs(wf-gf) > llAbs {
			c.fail("%s.%s: lm-eval %v goeval %v", p, k, want, got)
		}
		return false
	}
	fr, _ := row.Get("filtered_resps")
	var lls []float64
	for _, r := range asList(fr) {
		if pair := asList(r); len(pair) > 0 {
			if f, ok := f64(pair[0]); ok {
				lls = append(lls, f)
			}
		}
	}
	if len(lls) > 0 && llMass(want, got) {
		return false
	}
	slices.Sort(lls)
	if n := len(lls); n >= 2 && lls[n-1]-lls[n-2] <= tieAbs {
		c.notes = append(c.notes, fmt.Sprintf("%s.%s: near-tie flip: lm-eval %v goeval %v", p, k, want, got))
	} else {
		c.fail("%s.%s: lm-eval %v goeval %v", p, k, want, got)
	}
	return false
}

// llMass: a probability mass over the choices' likelihoods
// (truthfulqa_mc2's acc, a ratio of sums of exp(ll)) — floats other than 0
// and 1 — within the relative 2*llAbs that log-likelihoods within llAbs
// allow.
func llMass(want, got any) bool {
	w, wok := want.(json.Number)
	g, gok := got.(json.Number)
	if !wok || !gok || !strings.ContainsAny(w.String(), ".e") || !strings.ContainsAny(g.String(), ".e") {
		return false
	}
	wf, _ := w.Float64()
	gf, _ := g.Float64()
	return wf != 0 && wf != 1 && math.Abs(wf-gf) <= 2*llAbs*math.Max(math.Abs(wf), math.Abs(gf))
}

func asList(v any) []any { l, _ := v.([]any); return l }

// results compares two results files; exact says per task whether its
// per-sample values were identical.
func (c *cmp) results(want, got *py.Map[any], exact map[string]bool) {
	gs, _ := want.Get("group_subtasks")
	groupSubtasks, _ := gs.(*py.Map[any])
	num := func(path string, w, g json.Number) {
		parts := strings.Split(path, ".")
		if len(parts) == 3 && (parts[0] == "results" || parts[0] == "groups") && strings.Contains(parts[2], ",") {
			metric := strings.TrimSuffix(strings.Split(parts[2], ",")[0], "_stderr")
			leaves := []string{parts[1]}
			if sub, ok := groupSubtasks.Get(parts[1]); ok {
				leaves = nil
				for _, s := range asList(sub) {
					leaves = append(leaves, fmt.Sprint(s))
				}
			}
			allExact := true
			for _, l := range leaves {
				allExact = allExact && exact[l]
			}
			wf, _ := w.Float64()
			gf, _ := g.Float64()
			ppl := slices.Contains(pplMetrics, metric)
			if !allExact && !ppl {
				if wf != gf {
					c.notes = append(c.notes, fmt.Sprintf("%s: lm-eval %v goeval %v (per-sample values differ)", path, w, g))
				}
				return
			}
			rel := aggRel
			if ppl {
				rel = pplRel
			}
			if math.Abs(wf-gf) > rel*math.Max(math.Max(math.Abs(wf), math.Abs(gf)), 1e-300) {
				c.fail("%s: lm-eval %v goeval %v", path, w, g)
			}
			return
		}
		if w != g {
			c.fail("%s: lm-eval %v goeval %v", path, w, g)
		}
	}
	c.tree("", want, got, num)
}

// isJSONNumber reports whether a decoded value is a number (a chrf/bleu
// (reference, prediction) pair holds strings and is compared exactly).
func isJSONNumber(v any) bool {
	_, ok := v.(json.Number)
	return ok
}
