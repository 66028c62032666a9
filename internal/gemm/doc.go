// Package gemm is goeval's f32 matrix multiply for the pure-Go CPU
// backend: C[m, N] = A[m, K] · B[K, N], with B (weights) packed once by
// PackB and multiplied many times by MatMul; and the same with B
// bfloat16, widened to f32 in the kernels (MatMulBF16: see "bfloat16
// weights").
//
// # Determinism
//
// Every c[i,j] is one chain of fused multiply-adds over k = 0, 1, …, K−1 in
// ascending order, starting from +0: acc = fma(a[i,k], B[k,j], acc), each
// step rounded once to f32. So a row's result does not depend on m, on the
// other rows, on threads, on tiling or edge handling (remainder rows and
// columns are zero-padded and run through the same kernel; a K block stores
// its partial sums in C, which is exact, and the next block continues from
// them), nor on the kernel: the assembly kernels (VFMADD231PS) and the
// pure-Go kernel (math.FMA in f64, corrected for double rounding: see
// fma32) agree bit for bit. The tests check all of this against a naive
// reference.
//
// # Kernels
//
// Kernel names the kernel in use; GOEVAL_GEMM_KERNEL=avx512|avx2|go forces
// one (a value the CPU cannot run is ignored):
//
//   - "avx512" (amd64, AVX-512F): 8×32 tiles, 16 zmm accumulators. It was
//     written on a machine without AVX-512 and has never run on hardware
//     here; it is used only after passing, at first use, a bit-exact
//     self-check against the Go reference (else avx2+fma is used).
//   - "avx2+fma" (amd64, AVX2 and FMA): 6×16 tiles, 12 ymm accumulators;
//     per k two B loads, six broadcasts, twelve FMAs. Also self-checked,
//     and so are its direct-A twins (below; if they fail, A is always
//     packed): 6×16, and 6×8 and 12×8 for tiles of at most 8 columns.
//   - "go" (everything else): 4×8 tiles in Go.
//
// # Layout and blocking
//
// PackB stores B as panels of NR columns, each K×NR with the column index
// fastest, the last zero-padded. MatMul packs A per call (unless B is a
// few panels: see Direct A), mc rows × kc at a time, into MR-row panels
// (zero-padded) in pooled scratch. Loop nest:
// nc-column group (2048) → K block (≤ 1024 for avx2+fma, K split evenly)
// → mc-row block (72) → B micro-panel (kc×NR, in L1/L2) → MR×NR tile. The
// kernels prefetch the next tile's C (a K block after the first loads it)
// and the next B micro-panel. With threads > 1, MatMul splits the row
// panels (large m) or the column panels (small m, as in decode) over
// goroutines in a fixed partition; it is safe for concurrent use.
//
// PackInPlace packs a weight [N, K] (B = its transpose) in its own storage
// when N is a multiple of NR: panel p then takes exactly the floats of the
// NR weight rows it holds, so each panel is rewritten where it lies through
// an NR×K scratch. Unpack and UnpackTo give the weight back. A backend can
// so pack a model's weights once, at no memory cost, instead of per call.
// packA8 (MR 8) transposes whole 8×8 blocks in registers where AVX2 is
// (pack_amd64.s).
//
// # Direct A (decode)
//
// With few B panels (at most kernel.maxDirect: 8 for avx2+fma), as when
// decode multiplies a weight [N_w, K] read in place by the few activation
// rows transposed, each A element serves only a few tiles, and packing A
// (a scalar loop) costs more than it saves. MatMul then reads full
// 6-row tiles of A in place: the direct kernel broadcasts a[r][k] from the
// six row addresses (two base registers and the stride) with the packed
// kernel's loads and FMAs in the same order, so the same bits. A tile of at
// most 8 columns (a panel's last, or all of B for one sequence) runs a
// 6×8 kernel at half the FMAs, and where B is one such panel, a 12×8 one:
// twelve chains hide the FMA latency that six leave exposed. Row tile by
// row tile, through all K blocks in order (partial sums continued through
// C as in the packed path), so each A row streams once, in sequence; the
// hardware prefetcher follows the rows (a software prefetch of A ahead
// measured no faster). The last rows (fewer than 6) and the AVX-512 and Go
// kernels still pack A.
//
// # bfloat16 weights
//
// PackedBF16 holds bf16 bit patterns in the f32 layout's panels of NR
// columns with k in pairs ([K/2][NR][2], K even), packed in place like
// f32 weights (PackInPlaceBF16: the panel of NR weight rows takes exactly
// their storage). Each bf16 kernel reads a pair of B rows once as dwords
// and widens them in registers: VPSLLD $16 gives the even k's NR values
// as f32, VPAND 0xFFFF0000 the odd k's; both exact, and the broadcasts
// and FMAs that follow are the f32 kernel's, in its order. So MatMulBF16
// gives, bit for bit, MatMul on the widened weight: the determinism
// contract holds for bf16 weights too (TestBF16MatchesWidened: every
// kernel, one row to edge tiles, K blocks, threads). A is packed per call
// in f32 as for MatMul; there is no direct-A path (the weight is always
// B). Each kernel has twins for one row and for a few (4 of 8 on AVX-512,
// 3 of 6 on AVX2): at one row (decode) the full tile's FMAs, 8 or 6 rows
// of which only one is real, cost more time than the half-size weight
// saves reading. The Go kernel (arm64 and CPUs without AVX2) widens a
// micro-panel into an f32 one on the stack and runs rowGo on it: the same
// chains. The bf16 kernel set is chosen like the f32 one
// (GOEVAL_GEMM_KERNEL, self-check at first use, KernelBF16).
//
// MatMulBF16Dot (opt-in; AVX512_BF16 only) uses VDPBF16PS on the same
// layout, with A rounded to bf16: per k pair it adds the odd product and
// then the even one (dotReference; measured on Zen 4 to match Intel's
// definition bit for bit), flushing subnormals. Its numbers are not the
// widening kernels': each activation loses up to 2^-8 of its value.
//
// # Screened argmax (greedy LM heads)
//
// RowsI8 is an int8 copy of a weight [N, K] with per-row error bounds;
// its ArgMax finds the index of the largest a·w_j that MatMul (or
// MatMulBF16Dot) would compute, bit for bit, by approximating every row
// from the copy and computing exactly only the rows whose bound can reach
// the best (screen.go, screen_quant.go, kernel_i8_amd64.s). With
// AVX512_VNNI the activations are split into two int8 levels too and the
// approximations are exact integer sums (VPDPBUSD over a copy interleaved
// 16 rows to a vector), so many rows cost little more than one; the bound
// then adds the activations' residual (screen_int.go).
//
// # Exact int8 products (LLM.int8)
//
// MatMulInt8 multiplies int8 activation codes by an int8 weight held
// interleaved as the screen's copy (Int8Matrix, Int8MatrixFrom), each
// output the exact int32 sum, on the same VPDPBUSD kernels (int8mm.go;
// AVX512_VNNI only: HasInt8MatMul).
//
// # Performance
//
// Measured on the development machine (2 cores of an AMD EPYC Zen 3,
// AVX2+FMA, no AVX-512; f32 peak by bench/peak.Measure ≈ 99 GFLOP/s on one
// core, ≈ 198 on two), kernel avx2+fma, with
//
//	go test -run '^$' -bench . -benchtime 20x -count 3 ./internal/gemm
//
// in GFLOP/s (2·m·K·N per call, mean of 20 calls). The machine was shared
// with other jobs (its load, not the kernel, moved the figures by up to
// 2×): "best" is the best run, "typical" the runs at low load, when a
// register-only FMA loop reached its full peak on both cores.
//
//	m×K×N            threads=1         threads=2
//	                 best  typical     best  typical
//	512×896×4864      90   78–85       174   150–167
//	512×4864×896      82   76–81       171   140–160
//	512×896×896       89   80–88       170   130–150
//	1×896×4864        15    9–15        18    15–17    (B: 17 MB)
//	1×4864×896        13    8–13        16    12–15
//	16×896×4864       66   55–65       113    95–112
//	16×896×151936     64   55–61       120   100–120   (B: 544 MB)
//
// BenchmarkKernel (the kernel alone, operands in L1/L2) reaches 97–101
// GFLOP/s on one core at low load: MatMul keeps 80–90 % of it for m = 512.
// m = 1 and 16 stream B (A is padded to whole 6-row panels, which costs
// compute only): 1×896×4864 at 15–18 GFLOP/s reads B at 30–35 GB/s (17 MB:
// partly from the 32 MB L3 between calls); 16×896×151936 at 120 GFLOP/s
// reads its 544 MB from DRAM at 15 GB/s while computing 18 rows.
//
// Decode, as the backend runs it (A = a weight [m, K] read in place, B =
// N activation columns packed), A packed per call (as before direct A; the
// packed path is unchanged, its figures equal the old code's within the
// noise) and read in place:
//
//	go test -run '^$' -bench Decode -benchtime 10x -count 3 ./internal/gemm
//
// in GB/s of A read (4·m·K bytes per call; A cycles through 96 MB of
// copies, so it comes from DRAM as in a decode step) and GFLOP/s; the
// range of two such runs (6 figures each) at load ≈ 1:
//
//	m×K×N            threads  packed: GB/s  GFLOP/s   direct: GB/s  GFLOP/s
//	4864×896×1          1          2.7–3.6  1.3–1.8        11.0–13.5  5.5–6.7
//	                    2          4.9–6.3  2.4–3.1        17.7–20.7  8.9–10.3
//	896×4864×1          1          2.2–2.5  1.1–1.3        10.9–14.1  5.4–7.1
//	                    2          3.7–4.6  1.9–2.3        16.1–19.0  8.1–9.5
//	4864×896×8          1          2.6–3.6   10–15         10.1–11.4   41–45
//	                    2          4.1–5.6   16–22         15.7–19.8   63–79
//	151936×896×1        1          3.2–3.8  1.6–1.9        13.0–13.8  6.5–6.9
//	                    2          5.6–7.1  2.8–3.5        20.6–25.5   10–13
//
// Direct A is 3.5–5× faster: the 2 GB of a 0.5B model's weights take ≈ 90
// ms at 22 GB/s, against ≈ 330 ms packed. One core is bound by the kernel
// (the 12×8 one alone, A in L1, takes ≈ 7 cycles per k step for its 12
// rows: ≈ 21 GB/s of A), two come near the memory. BenchmarkDirectPanels
// (A 4864×896 and 896×4864, one core) set the threshold: direct A is
// 2.4–3.5× faster than packing at 1 panel (N = 16), 1.8–2.5× at 2,
// 1.35–1.7× at 4, 1.2–1.55× at 8 and 1.1–1.2× at 16 (80–95 GFLOP/s
// against 60–85). maxDirect = 8 stops short of that: B is re-read from
// L2/L3 for every row tile, which a larger B would not survive.
package gemm
