// Package bench is the benchmark library behind `goeval bench`: scoring
// throughput ([Score]), generation throughput ([Generate]) and tokenizer
// encode throughput ([Tokenize]). Each returns a typed report whose
// WriteText method prints the line the command prints.
//
// The package also holds the Go benchmarks (`go test -bench . ./bench`)
// and, under peers/, the scripts that run the same work through Hugging
// Face transformers and llama.cpp. `goeval bench score` is the
// command-line twin of BenchmarkScore.
package bench

import "github.com/goeval/goeval/engine"

// Opener loads the engine a benchmark measures. The benchmark calls it
// once, counts the time it takes as load time, and closes the engine when
// it is done.
type Opener func() (*engine.Engine, error)
