package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
)

// writeScoreLines writes goeval score's result lines. encoding/json refuses
// NaN and ±Inf, which a model with broken weights produces; those are
// written as Python's json module writes them (NaN, Infinity, -Infinity,
// which json.loads and lm-eval read back). Finite numbers are spelled as
// encoding/json spells them.
func writeScoreLines(w io.Writer, rows []scoreOut) error {
	bw := bufio.NewWriter(w)
	var b []byte
	for _, r := range rows {
		b = append(b[:0], `{"logprob":`...)
		b = appendJSONFloat(b, r.LogProb)
		b = append(b, `,"is_greedy":`...)
		b = strconv.AppendBool(b, r.IsGreedy)
		b = append(b, `,"n_tokens":`...)
		b = strconv.AppendInt(b, int64(r.NTokens), 10)
		if len(r.TokenLogProbs) > 0 {
			b = append(b, `,"token_logprobs":[`...)
			for i, x := range r.TokenLogProbs {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendJSONFloat(b, x)
			}
			b = append(b, ']')
		}
		b = append(b, "}\n"...)
		if _, err := bw.Write(b); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
	}
	return bw.Flush()
}

// appendJSONFloat appends x as encoding/json writes a float64, or as
// NaN, Infinity or -Infinity.
func appendJSONFloat(b []byte, x float64) []byte {
	switch {
	case math.IsNaN(x):
		return append(b, "NaN"...)
	case math.IsInf(x, 1):
		return append(b, "Infinity"...)
	case math.IsInf(x, -1):
		return append(b, "-Infinity"...)
	}
	s, _ := json.Marshal(x) // cannot fail for a finite float
	return append(b, s...)
}
