// Package pyworker runs Python functions for goeval in a worker process:
// the Python functions lm-eval task files name with `!function
// module.attr` (process_docs, doc_to_*, process_results, metrics,
// aggregations, filter classes), imported from the task file's folder as
// lm-eval imports them, so that goeval's results are those of the same
// Python code.
//
// The worker is worker.py, embedded here and run with `python -c`. One
// request and one answer at a time cross its stdin and stdout as JSON
// lines, values in the tagged encoding of codec.go (ints and floats
// apart, tuples, non-string dict keys, NaN and infinities, numpy
// values). The worker keeps the protocol to itself: stdin is replaced by
// /dev/null, C-level writes to stdout go to stderr, and a hook whose
// Python code prints fails its call. A Runtime starts the worker on its
// first call, restarts it after a timeout or a crash, and is closed by
// its owner (a tasks.Index); nothing of it is process-wide.
package pyworker
