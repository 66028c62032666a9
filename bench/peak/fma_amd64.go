package peak

import "golang.org/x/sys/cpu"

//go:noescape
func fmaAVX2(n int64)

//go:noescape
func fmaAVX512(n int64)

// kernel is the widest FMA loop this CPU runs: its name, the f32 FLOPs of
// one iteration (12 FMAs × lanes × 2) and the loop.
func kernel() (name string, flopsPerIter float64, loop func(n int64)) {
	switch {
	case cpu.X86.HasAVX512F:
		return "avx512", 12 * 16 * 2, fmaAVX512
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		return "avx2+fma", 12 * 8 * 2, fmaAVX2
	}
	return scalarKernel()
}

// Features lists the CPU's vector features that matter for f32 matmuls.
func Features() []string {
	var out []string
	for _, f := range []struct {
		name string
		ok   bool
	}{{"sse4.2", cpu.X86.HasSSE42}, {"avx", cpu.X86.HasAVX}, {"avx2", cpu.X86.HasAVX2}, {"fma", cpu.X86.HasFMA},
		{"avx512f", cpu.X86.HasAVX512F}, {"avx512vnni", cpu.X86.HasAVX512VNNI}, {"avx512bf16", cpu.X86.HasAVX512BF16}} {
		if f.ok {
			out = append(out, f.name)
		}
	}
	return out
}
