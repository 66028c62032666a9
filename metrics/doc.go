// Package metrics holds lm-evaluation-harness's metric layer in pure Go:
// filters (regex extraction, take_first, case mapping), per-sample metrics
// (acc, acc_norm, acc_bytes, acc_mutual_info, exact_match, DROP em/f1) and
// their typed values (Value: a number or a corpus-level pair), corpus
// aggregations (mean, median, perplexity, weighted_perplexity,
// bits_per_byte, f1, matthews_corrcoef), standard errors (closed form for
// means, lm-eval's seeded bootstrap otherwise), group aggregation with
// pooled standard errors, and the paired significance tests that compare
// two runs (exact McNemar, paired bootstrap, a z-test fallback).
//
// Python semantics are reproduced where they change numbers: Python `re`
// patterns, Unicode str.strip/split/lower/capitalize, Python float()
// parsing and repr (all from internal/py), numpy argmax tie and NaN rules,
// numpy's fixed-width string arrays in exact_match, and CPython's
// random.Random for the bootstrap (py.Rand).
//
// The package reads no files and imports no GoMLX.
package metrics
