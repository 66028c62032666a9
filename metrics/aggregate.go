package metrics

import (
	"fmt"
	"math"
	"sort"
)

// Aggregation names lm-eval registers (api/metrics.py) that Aggregate knows.
const (
	AggMean               = "mean"
	AggMedian             = "median"
	AggPerplexity         = "perplexity"
	AggWeightedPerplexity = "weighted_perplexity"
	AggBitsPerByte        = "bits_per_byte"
	AggF1                 = "f1"
	AggMCC                = "matthews_corrcoef"
	AggNanMean            = "nanmean"
	AggBypass             = "bypass"
	AggBLEU               = "bleu"
	AggChrF               = "chrf"
	AggTER                = "ter"
)

// Aggregate applies lm-eval's aggregation `name` to per-sample values.
// mean, median, perplexity and nanmean take numbers; weighted_perplexity
// and bits_per_byte take (ll, weight) pairs; f1 and matthews_corrcoef take
// (gold, pred) pairs.
func Aggregate(name string, values []Value) (float64, error) {
	if len(values) == 0 {
		return 0, fmt.Errorf("aggregate %s: no values", name)
	}
	switch name {
	case AggMean, AggMedian, AggPerplexity, AggNanMean:
		xs, err := Scalars(values)
		if err != nil {
			return 0, fmt.Errorf("aggregate %s: %w", name, err)
		}
		return aggregateScalars(name, xs), nil
	case AggWeightedPerplexity, AggBitsPerByte:
		ps, err := Pairs(values)
		if err != nil {
			return 0, fmt.Errorf("aggregate %s: %w", name, err)
		}
		if name == AggBitsPerByte {
			return BitsPerByte(ps), nil
		}
		return WeightedPerplexity(ps), nil
	case AggF1, AggMCC:
		ps, err := Pairs(values)
		if err != nil {
			return 0, fmt.Errorf("aggregate %s: %w", name, err)
		}
		if name == AggF1 {
			return F1Score(ps)
		}
		return MatthewsCorrcoef(ps), nil
	case AggBLEU, AggChrF, AggTER:
		ts, err := TextPairs(values)
		if err != nil {
			return 0, fmt.Errorf("aggregate %s: %w", name, err)
		}
		return corpusScore(name, ts), nil
	case AggBypass:
		return 999, nil
	}
	return 0, fmt.Errorf("aggregate: unknown aggregation %q (known: mean, median, perplexity, weighted_perplexity, bits_per_byte, f1, matthews_corrcoef, nanmean, bleu, chrf, ter, bypass)", name)
}

// aggregateScalars is the scalar aggregations over float64s.
func aggregateScalars(name string, xs []float64) float64 {
	switch name {
	case AggMedian:
		return Median(xs)
	case AggPerplexity:
		return Perplexity(xs)
	case AggNanMean:
		return NanMean(xs)
	}
	return Mean(xs)
}

// Mean is lm-eval's mean: sum(arr)/len(arr) with Python 3.11's plain
// left-to-right float sum (3.12+ compensates; results can differ in the
// last ulp).
func Mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Median is lm-eval's median: sorted(arr)[len(arr)//2] (the upper median for
// an even count, not the average of the middle two).
func Median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// Perplexity is exp(-mean(lls)) over per-document log-likelihoods.
func Perplexity(lls []float64) float64 { return math.Exp(-Mean(lls)) }

// NanMean is numpy.nanmean (NaN when every value is NaN).
func NanMean(xs []float64) float64 {
	var keep []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			keep = append(keep, x)
		}
	}
	if len(keep) == 0 {
		return math.NaN()
	}
	return npMean(keep)
}

// WeightedMean is lm-eval's weighted_mean: Σa / Σb over (a, b) pairs.
func WeightedMean(ps [][2]float64) float64 {
	a, b := 0.0, 0.0
	for _, p := range ps {
		a += p[0]
	}
	for _, p := range ps {
		b += p[1]
	}
	return a / b
}

// WeightedPerplexity is exp(-Σll/Σweight) (word_perplexity, byte_perplexity).
func WeightedPerplexity(ps [][2]float64) float64 { return math.Exp(-WeightedMean(ps)) }

// BitsPerByte is -(Σll/Σbytes)/ln 2.
func BitsPerByte(ps [][2]float64) float64 { return -WeightedMean(ps) / math.Log(2) }

// Scalars converts per-sample number values to float64s.
func Scalars(values []Value) ([]float64, error) {
	xs := make([]float64, len(values))
	for i, v := range values {
		x, ok := v.Float()
		if !ok {
			return nil, fmt.Errorf("value %d is not a number", i)
		}
		xs[i] = x
	}
	return xs, nil
}

// Pairs converts per-sample pair values ((ll, weight) or (gold, pred)).
func Pairs(values []Value) ([][2]float64, error) {
	ps := make([][2]float64, len(values))
	for i, v := range values {
		p, ok := v.Pair()
		if !ok {
			return nil, fmt.Errorf("value %d is not a pair", i)
		}
		ps[i] = p
	}
	return ps, nil
}

// TextPairs returns text (reference, prediction) values.
func TextPairs(values []Value) ([][2]string, error) {
	out := make([][2]string, len(values))
	for i, v := range values {
		t, ok := v.Texts()
		if !ok {
			return nil, fmt.Errorf("value %d is not a (reference, prediction) pair", i)
		}
		out[i] = t
	}
	return out, nil
}
