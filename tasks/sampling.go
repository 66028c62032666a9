package tasks

import "github.com/goeval/goeval/internal/py"

// Sampling is how generation_kwargs decode, as transformers applies them:
// temperature, top_p and top_k count only with do_sample=true; otherwise
// decoding is greedy and they are ignored. This is the one place that rule
// lives: the evaluator's generate requests and --gen-kwargs' warnings both
// read it.
type Sampling struct {
	DoSample    bool
	Temperature float64 // 0 when greedy
	TopP        float64 // 0 when unset or greedy (disabled)
	TopK        int     // 0 when unset or greedy (disabled)
	// Ignored are the sampling keys kw sets that greedy decoding ignores
	// (a temperature of 0 is greedy anyway and not listed), in key order.
	Ignored []string
}

// SamplingOf reads kw's sampling keys.
func SamplingOf(kw map[string]any) Sampling {
	var s Sampling
	s.DoSample, _ = kw["do_sample"].(bool)
	t, hasT := py.ToFloat(kw["temperature"])
	p, hasP := py.ToFloat(kw["top_p"])
	k, hasK := py.ToFloat(kw["top_k"])
	if s.DoSample {
		s.Temperature, s.TopP, s.TopK = t, p, int(k)
		return s
	}
	for _, x := range []struct {
		key string
		set bool
	}{{"temperature", hasT && t > 0}, {"top_p", hasP}, {"top_k", hasK}} {
		if x.set {
			s.Ignored = append(s.Ignored, x.key)
		}
	}
	return s
}
