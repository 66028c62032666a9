// Package engine implements the lm contract on GoMLX: Open loads a Hugging
// Face checkpoint (package models) with its tokenizer on a device (the
// pure-Go backend, XLA on the CPU, or CUDA; device.go), and the Engine
// answers lm.LM's three requests. Scoring calls are planned by engine/plan
// (each distinct request once, packed rows over a prefix tree, cached
// few-shot prefixes) and run as hidden-state graphs followed by the LM
// head over a few slots at a time (loglikelihood.go, score.go, head.go);
// generation prefills shared prompt prefixes once and decodes batches over
// a head-major KV cache (generate*.go, genprefix.go, kvcache.go). Results
// never depend on the batch a request runs in. The engine knows nothing of
// tasks, metrics or the evaluator.
package engine
