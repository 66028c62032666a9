package gemm

// Many-row products through a packed 4-bit weight (prefill, scoring) run
// the f32 kernels on tiles of the weight dequantized into packed-B
// panels, so each element is the same FMA chain as with the dequantized
// weight (MatMul's contract) and so bit-identical to it. PackQ4Into
// writes a tile's panels straight from the codes, one k of a panel's
// rows at a time, instead of dequantizing whole rows into memory and
// transposing those as PackBInto does (its reads 8 KiB apart): 2.8–3.5×
// faster at K 2048 (BenchmarkPackQ4).

// q4PackChunk is the most values of each row a panel is filled with at
// a time (one block's table per row for the chunk).
const q4PackChunk = 64

// PackQ4Into packs rows [n0, n1) of b's [N, K] weight, dequantized, as
// the right-hand side Bᵀ [K, n1−n0] of MatMul into dst (at least
// PackedSize(K, n1−n0) floats): the PackedB, values and layout, that
// PackBInto(dst, rows, K, n1−n0, K, true) makes of the rows that
// b.DequantizeRows(rows, n0, n1) writes.
func PackQ4Into(dst []float32, b *PackedQ4, n0, n1 int) *PackedB {
	if err := b.Validate(); err != nil {
		panic(err)
	}
	if n0 < 0 || n1 > b.N || n0 >= n1 {
		panic("gemm: PackQ4Into: bad rows")
	}
	kern := defaultKernel()
	k, n, nr := b.K, n1-n0, kern.nr
	size := PackedSize(k, n)
	if len(dst) < size {
		panic("gemm: PackQ4Into: dst too small")
	}
	pb := &PackedB{K: k, N: n, kern: kern, data: dst[:size]}
	chunk := gcd(b.Block, q4PackChunk) // a chunk lies in one block
	for j0 := 0; j0 < n; j0 += nr {
		panel := pb.data[j0*k : (j0+nr)*k] // [K][NR]
		if n-j0 < nr {
			clear(panel)
		}
		for k0 := 0; k0 < k; k0 += chunk {
			b.packChunk(panel[k0*nr:(k0+chunk)*nr], n0+j0, min(nr, n-j0), k0, nr)
		}
	}
	return pb
}

// packChunk writes values k0 … k0+len(dst)/nr−1 of rows n … n+w−1 into
// dst [len(dst)/nr][nr] (row n+j in column j), each row's values of the
// chunk from one block's table.
func (b *PackedQ4) packChunk(dst []float32, n, w, k0, nr int) {
	var tbls [32][16]float32 // NR ≤ 32 (the kernels' panels)
	var codes [32][]byte
	half := len(dst) / nr / 2
	for j := range w {
		at := (n+j)*b.K + k0
		b.blockTable(&tbls[j], at/b.Block)
		codes[j] = b.Codes[at/2 : at/2+half]
	}
	for i := range half {
		even := dst[2*i*nr : 2*i*nr+w]
		odd := dst[(2*i+1)*nr : (2*i+1)*nr+w]
		for j := range even {
			q := codes[j][i]
			even[j], odd[j] = tbls[j][q>>4], tbls[j][q&0xF]
		}
	}
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
