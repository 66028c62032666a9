// Package metrics holds lm-evaluation-harness's metric layer in pure Go:
// filters (regex extraction, take_first, case mapping), per-sample metrics
// (acc, acc_norm, acc_bytes, acc_mutual_info, exact_match, DROP em/f1),
// corpus aggregations (mean, median, perplexity, weighted_perplexity,
// bits_per_byte, f1, matthews_corrcoef), standard errors (closed form for
// means, lm-eval's seeded bootstrap otherwise) and group aggregation with
// pooled standard errors.
//
// Python semantics are reproduced where they change numbers: Python `re`
// patterns (see py.Compile), Unicode str.strip/split/lower/capitalize (see
// pystr.go), Python float() parsing and repr (pyfloat.go), numpy argmax tie
// and NaN rules, numpy's fixed-width string arrays in exact_match, and
// CPython's random.Random for the bootstrap (internal/pyrand).
//
// The package reads no files and imports no GoMLX.
package metrics
