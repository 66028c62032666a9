package tasks

import (
	"reflect"
	"testing"
)

// TestSamplingOf: the sampling keys count only with do_sample=true;
// without it they are listed as ignored (a zero temperature is greedy
// anyway and not listed).
func TestSamplingOf(t *testing.T) {
	for _, c := range []struct {
		kw   map[string]any
		want Sampling
	}{
		{map[string]any{"do_sample": true, "temperature": 0.7, "top_p": 0.9, "top_k": int64(40)},
			Sampling{DoSample: true, Temperature: 0.7, TopP: 0.9, TopK: 40}},
		{map[string]any{"do_sample": true, "temperature": 0.5}, Sampling{DoSample: true, Temperature: 0.5}},
		{map[string]any{"temperature": 0.7, "top_k": int64(5)}, Sampling{Ignored: []string{"temperature", "top_k"}}},
		{map[string]any{"do_sample": false, "temperature": 0.0, "top_p": 0.9}, Sampling{Ignored: []string{"top_p"}}},
		{map[string]any{"max_gen_toks": int64(8)}, Sampling{}},
	} {
		if got := SamplingOf(c.kw); !reflect.DeepEqual(got, c.want) {
			t.Errorf("SamplingOf(%v) = %+v, want %+v", c.kw, got, c.want)
		}
	}
}
