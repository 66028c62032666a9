// Package synth writes synthetic checkpoints, tokenizers and datasets in the
// exact Hugging Face schemas: random-weight decoder checkpoints
// (config.json, safetensors) that transformers loads without missing or
// unexpected keys, and a small byte-level BPE tokenizer (tokenizer.json,
// tokenizer_config.json). Every output is deterministic: the same options
// give byte-identical files on every machine. goeval uses them for the
// demo, tests, benchmarks and parity checks, where no real model can be
// downloaded.
package synth
