package tasks

import (
	"fmt"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/metrics"
)

// score is ConfigurableTask.process_results for a task YAML: per filter,
// the metrics of metric_list (or process_results' hook).
func (sc *yamlScorer) score(s *spec, inst *Instance, resps []Response) (map[string]SampleResult, error) {
	if sc.builtin != "" {
		b := builtin(sc.builtin)
		return b.score(b, inst, resps)
	}
	if sc.pyResults != nil {
		return sc.scorePyResults(s, inst, resps)
	}
	if sc.results != nil {
		m, err := sc.results(inst.Doc, resps)
		if err != nil && needsPython(err) && sc.pyFallback != nil {
			return sc.withPy(sc.pyFallback).scorePyResults(s, inst, resps)
		}
		if err != nil && needsPython(err) {
			return nil, fmt.Errorf("process_results: %w, and the task file's Python function cannot run (%v): give --python with lm-eval's ifeval extra (langdetect, immutabledict, nltk and its punkt data)", err, sc.pyFallbackErr)
		}
		if err != nil {
			return nil, fmt.Errorf("process_results: %w", err)
		}
		return map[string]SampleResult{s.Filters()[0]: {Metrics: m, FilteredResps: filteredLL(resps, s.output)}}, nil
	}
	switch s.output {
	case MultipleChoice:
		return sc.scoreMC(s, inst, resps)
	case Loglikelihood:
		r := resps[0]
		m := map[string]metrics.Value{}
		for _, ms := range s.metrics {
			switch ms.Name {
			case "perplexity":
				m["perplexity"] = metrics.Float(r.LogProb)
			case "acc":
				m["acc"] = metrics.Bool(r.IsGreedy)
			}
		}
		return map[string]SampleResult{"none": {Metrics: m, FilteredResps: [2]any{r.LogProb, r.IsGreedy}}}, nil
	case LoglikelihoodRolling:
		text, _ := inst.Target.(string)
		ll := resps[0].LogProb
		words, bytes := float64(len(wsSplitRe.Split(text))), float64(len(text))
		m := map[string]metrics.Value{}
		for _, ms := range s.metrics {
			switch ms.Name {
			case "word_perplexity":
				m[ms.Name] = metrics.Pair(ll, words)
			case "byte_perplexity", "bits_per_byte":
				m[ms.Name] = metrics.Pair(ll, bytes)
			}
		}
		return map[string]SampleResult{"none": {Metrics: m, FilteredResps: ll}}, nil
	}
	return sc.scoreGenerate(s, inst, resps)
}

func filteredLL(resps []Response, o OutputType) any {
	switch o {
	case GenerateUntil:
		return resps[0].Text
	case LoglikelihoodRolling:
		return resps[0].LogProb
	}
	out := make([][2]any, len(resps))
	for i, r := range resps {
		out[i] = [2]any{r.LogProb, r.IsGreedy}
	}
	if o == Loglikelihood {
		return out[0]
	}
	return out
}

// scoreMC scores a multiple-choice document: acc, acc_norm, acc_bytes,
// exact_match, and (gold, pred) pairs for f1 and mcc.
func (sc *yamlScorer) scoreMC(s *spec, inst *Instance, resps []Response) (map[string]SampleResult, error) {
	lls := make([]float64, len(resps))
	greedy := make([]bool, len(resps))
	for i, r := range resps {
		lls[i], greedy[i] = r.LogProb, r.IsGreedy
	}
	choices, err := s.choices(inst.Doc)
	if err != nil {
		return nil, err
	}
	gold := inst.Target
	if s.multiInput {
		if gold, err = s.goldIdx(inst.Doc); err != nil {
			return nil, err
		}
	}
	var res metrics.MCScores
	goldIdx := metrics.GoldOutOfRange
	if l, ok := gold.([]any); ok {
		golds := make([]int, len(l))
		for i, g := range l {
			golds[i] = metrics.GoldIndex(g, choices)
		}
		res = metrics.ScoreMultipleTarget(lls, greedy, choices, golds)
	} else {
		if b, ok := gold.(bool); ok { // a Python int
			gold = map[bool]int{false: 0, true: 1}[b]
		}
		goldIdx = metrics.GoldIndex(gold, choices)
		res = metrics.ScoreMultipleChoice(lls, greedy, choices, goldIdx)
	}
	m := map[string]metrics.Value{}
	for _, ms := range s.metrics {
		switch ms.Name {
		case "acc":
			m[ms.Name] = metrics.Float(res.Acc)
		case "acc_norm":
			m[ms.Name] = metrics.Float(res.AccNorm)
		case "acc_bytes":
			m[ms.Name] = metrics.Float(res.AccBytes)
		case "exact_match":
			m[ms.Name] = metrics.Int(int(res.ExactMatch))
		case "f1", "mcc":
			if _, multi := gold.([]any); multi {
				return nil, fmt.Errorf("%s needs one gold answer per document, and doc_to_target gave a list", ms.Name)
			}
			m[ms.Name] = metrics.Pair(float64(goldIdx), float64(res.Pred))
		}
	}
	return map[string]SampleResult{"none": {Metrics: m, FilteredResps: filteredLL(resps, MultipleChoice)}}, nil
}

// scoreGenerate runs each filter pipeline over the generation and scores
// exact_match against the gold: choices[target] when the task has
// choices, any of a list of targets, else str(target).
func (sc *yamlScorer) scoreGenerate(s *spec, inst *Instance, resps []Response) (map[string]SampleResult, error) {
	gold := inst.Target
	if s.choices != nil {
		choices, err := s.choices(inst.Doc)
		if err != nil {
			return nil, err
		}
		i, ok := gold.(int)
		if !ok || i < -len(choices) || i >= len(choices) {
			return nil, fmt.Errorf("doc_to_target %v is not an index into the %d choices", gold, len(choices))
		}
		gold = choices[(i+len(choices))%len(choices)]
	}
	pyGold := gold // Python metrics take the gold as it is: the worker applies lm-eval's rules
	var golds []string
	multi := s.multiTarget && s.choices == nil
	if str, ok := gold.(string); ok && multi {
		gold = nil // lm-eval's list(gold): a string target of a multiple-target task is its characters
		for _, r := range str {
			golds = append(golds, string(r))
		}
	}
	if l, ok := gold.([]any); ok && multi {
		for _, g := range l {
			gs, err := py.StrValue(g)
			if err != nil {
				return nil, err
			}
			golds = append(golds, gs)
		}
	} else if gold != nil {
		golds = []string{py.Str(gold)}
	}
	texts := answers(resps[0])
	out := map[string]SampleResult{}
	for _, f := range sc.pipes() {
		l, err := f.apply(texts, inst.Doc)
		if err != nil {
			return nil, fmt.Errorf("filter %s: %w", f.name, err)
		}
		pred := l.filtered()
		m, err := sc.genMetrics(s, inst, pyGold, golds, pred)
		if err != nil {
			return nil, fmt.Errorf("filter %s: %w", f.name, err)
		}
		out[f.name] = SampleResult{Metrics: m, FilteredResps: pred}
	}
	return out, nil
}

// answers are a generate request's answer texts, one per repeat.
func answers(r Response) []string {
	all := r.All()
	texts := make([]string, len(all))
	for i, a := range all {
		texts[i] = a.Text
	}
	return texts
}

// genMetrics scores a filtered prediction (a response, or a list of them
// when the pipeline keeps the repeats' list): Go metric hooks and
// goeval's metrics on the gold strings, Python's on gold as lm-eval has
// it.
func (sc *yamlScorer) genMetrics(s *spec, inst *Instance, gold any, golds []string, pred any) (map[string]metrics.Value, error) {
	m := map[string]metrics.Value{}
	hookedName := map[string]bool{}
	for _, h := range sc.hooked {
		if err := h.score(m, inst.Target, pred, s.code); err != nil {
			return nil, err
		}
		for _, n := range h.names {
			hookedName[n] = true
		}
	}
	for _, ms := range s.metrics {
		if hookedName[ms.Name] {
			continue
		}
		if f, ok := sc.pyMetrics[ms.Name]; ok {
			val, err := sc.pyMetric(s, f, gold, pred)
			if err != nil {
				return nil, err
			}
			m[ms.Name] = val
			continue
		}
		one, isOne := scoredOne(pred)
		switch ms.Name {
		case "exact_match":
			if !isOne {
				em, err := sc.listExactMatch(pred, golds)
				if err != nil {
					return nil, err
				}
				m[ms.Name] = metrics.Float(em)
				continue
			}
			em := 0.0
			for _, g := range golds {
				em = max(em, sc.em.Score(one, g))
			}
			m[ms.Name] = metrics.Float(em)
		case "bleu", "chrf", "ter": // corpus-level: the (reference, prediction) pair
			if len(golds) != 1 {
				return nil, fmt.Errorf("%s needs one reference per document, and doc_to_target gave %d", ms.Name, len(golds))
			}
			if !isOne {
				return nil, fmt.Errorf("%s needs one response per document as a string (got %s): end the filter with take_first", ms.Name, pyKind(pred))
			}
			m[ms.Name] = metrics.Text(golds[0], one)
		}
	}
	return m, nil
}

// scoredOne is the one response a built-in metric scores: pred itself, or
// the only element of a one-answer list (a pipeline without take_first
// logs the list, as lm-eval does, and scores as before).
func scoredOne(pred any) (string, bool) {
	if l, ok := pred.([]any); ok && len(l) == 1 {
		pred = l[0]
	}
	one, ok := pred.(string)
	return one, ok
}

// listExactMatch is exact_match of a list of responses against one gold:
// the share that match, as lm-eval's numpy comparison broadcasts it.
func (sc *yamlScorer) listExactMatch(pred any, golds []string) (float64, error) {
	l, isList := pred.([]any)
	if !isList {
		return 0, fmt.Errorf("exact_match compares strings, and a Python filter gave %s", pyKind(pred))
	}
	if len(golds) != 1 || len(l) == 0 {
		return 0, fmt.Errorf("exact_match of %d responses needs one gold answer (got %d): end the filter with take_first", len(l), len(golds))
	}
	sum := 0.0
	for _, p := range l {
		ps, ok := p.(string)
		if !ok {
			return 0, fmt.Errorf("exact_match compares strings, and a Python filter gave %s", pyKind(p))
		}
		sum += sc.em.Score(ps, golds[0])
	}
	return sum / float64(len(l)), nil
}

// pipes are the filter pipelines, or lm-eval's default "none": take_first,
// so a repeated request without a filter_list scores its first answer.
func (sc *yamlScorer) pipes() []filterPipe {
	if len(sc.filters) == 0 {
		return []filterPipe{{name: "none", steps: []pipeStep{takeFirst}}}
	}
	return sc.filters
}
