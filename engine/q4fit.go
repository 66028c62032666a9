package engine

import "github.com/goeval/goeval/internal/procfs"

// On xla-cpu a 4-bit checkpoint's weights kept packed are dequantized
// inside every graph that multiplies by them, so each decode step
// dequantizes the whole model: a 1B nf4 model decoded at 1.27 tokens/s
// packed against 6.88 with its weights dequantized at load (Zen 4, 2
// cores, 2026-11-29). There the engine dequantizes at load when the
// dense weights fit half the memory available (models.LoadOptions.
// Dequantize4BitFits); Options.Keep4BitPacked keeps them packed.

// dequantize4BitFits is models.LoadOptions.Dequantize4BitFits on device:
// on xla-cpu half of the memory available now, unless opts keep 4-bit
// weights packed; elsewhere 0 (the pure-Go backend multiplies by the
// codes, and CUDA keeps them packed for its memory).
func dequantize4BitFits(device string, opts Options) int64 {
	if device != "xla-cpu" || opts.Keep4BitPacked {
		return 0
	}
	return memAvailable() / 2
}

// memAvailable is Linux's MemAvailable in bytes (0 where unknown).
func memAvailable() int64 { return procfs.KB("/proc/meminfo", "MemAvailable") }
