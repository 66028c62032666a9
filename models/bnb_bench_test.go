package models

import "testing"

// BenchmarkBnbDecode measures decodeBlock, the dequantization's inner
// loop, per value (a published 8B model holds about 7e9 4-bit values).
func BenchmarkBnbDecode(b *testing.B) {
	packed := make([]byte, 1<<20)
	for i := range packed {
		packed[i] = byte(i * 7)
	}
	out := make([]float32, 64)
	b.SetBytes(int64(2 * len(packed)))
	for b.Loop() {
		for start := 0; start < 2*len(packed); start += 64 {
			decodeBlock(out, packed, start, &nf4Code, 0.5)
		}
	}
}
