// Package bench holds goeval's throughput benchmarks (`go test -bench .
// ./bench`) and, under peers/, the scripts that run the same work through
// Hugging Face transformers and llama.cpp. `goeval bench score` is the
// command-line twin of BenchmarkScore.
package bench
