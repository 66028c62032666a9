// Package nn holds the graph blocks shared by the decoder-only architectures
// in package models: RMSNorm and LayerNorm, rotary position embeddings,
// grouped-query attention (with scale, soft-cap and sliding-window options)
// and the gated MLP units. Every function builds GoMLX graph nodes and
// panics (with shapes in the message) on misuse; package models turns those
// panics into errors at its API.
//
// Axis letters used in shape comments:
//
//	B batch, T sequence (queries), S keys/values, H hidden size,
//	N query heads, K key/value heads, G query heads per KV head (N = K·G),
//	D head dimension, F MLP intermediate size, V vocabulary.
package nn

import "fmt"

// panicf panics with a formatted error; package models recovers it at its
// API boundary.
func panicf(format string, args ...any) { panic(fmt.Errorf(format, args...)) }
