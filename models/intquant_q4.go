package models

import (
	"math"
)

// GPTQ and AWQ 4-bit weights kept packed. A 4-bit GroupQuant whose groups
// are runs of equal length along the input (g_idx = i/group_size) is a
// Q4Weight: the identity table 0…15, one block per (output, group) with
// Absmax the group's scale s and Offset −s·z, its codes transposed to
// [Out, In] nibbles (input i of output o in byte (o·In+i)/2, the high
// nibble when i is even). The packed value of code q is
//
//	fl(fl(q·s) + fl(−s·z))
//
// and the dequantizing load's is fl(s·(q − z)) (GroupQuant.Dequantize).
// They are the same float32 where s has at most 11 significant bits (a
// widened float16 or bfloat16, as GPTQ and AWQ save scales): s = m·2^e
// with m < 2^11, q ≤ 15 and z ≤ 16 (a v1 zero of 15 plus one), so q·s =
// (q·m)·2^e and z·s = (z·m)·2^e have integer significands below 2^15 and
// are exact, as is their difference (q − z)·m·2^e, |(q − z)·m| < 2^15 —
// which is also s·(q − z) exactly (a code equal to the zero gives +0
// both ways as s > 0, as GPTQ and AWQ scales are). Rounded to bfloat16
// (weight-only bf16) both round the same value. Any other scale (float32
// scales with more bits, a negative one) is checked code by code, bit for
// bit, and the weight dequantized at load where any code differs.
//
// desc_act's g_idx spreads a group's inputs over the whole input (the
// activation order GPTQ quantized in), so no run of consecutive inputs
// shares one scale. Such a weight is packed with its input columns in
// group order (Q4Weight.Perm: packed column j is input Perm[j], a stable
// sort of the inputs by group), and the graph gathers the activation's
// columns into that order before the product (q4perm.go): the same
// values, summed in another order.
//
// A weight stays dequantized at load (GroupQuant.Q4 says why) where its
// codes are 8-bit or its groups do not all hold In/groups inputs (a
// group_size that does not divide in_features).

// int4Table is GPTQ/AWQ's code book: the code itself.
var int4Table = [16]float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}

// Q4 returns g as a packed 4-bit weight whose dequantized values are bit
// for bit g.Dequantize's, or nil and the reason g stays dequantized.
func (g *GroupQuant) Q4() (*Q4Weight, string) {
	groups := g.Groups()
	switch {
	case g.Bits != 4:
		return nil, "8-bit codes"
	case groups <= 0 || g.In%groups != 0 || (g.In/groups)%2 != 0:
		return nil, "groups do not split the input into equal even runs"
	}
	block := g.In / groups
	perm, ok := groupOrder(g.GIdx, groups, block)
	if !ok {
		return nil, "g_idx groups of unequal sizes"
	}
	w := &Q4Weight{Shape: [2]int{g.Out, g.In}, Codes: make([]byte, g.Out*g.In/2), Absmax: make([]float32, g.Out*groups),
		Offset: make([]float32, g.Out*groups), Blocksize: block, Table: int4Table, Perm: perm}
	for gr := range groups {
		for o := range g.Out {
			s, z := g.Scales[gr*g.Out+o], g.Zeros[gr*g.Out+o]
			if !int4Exact(s, z) {
				return nil, "a scale whose products are not exact"
			}
			w.Absmax[o*groups+gr], w.Offset[o*groups+gr] = s, -s*float32(z)
		}
	}
	g.nibblesInto(w.Codes, perm)
	return w, ""
}

// groupOrder is the inputs in group order (stable), or nil where g_idx is
// already i/block; ok is false where a group does not hold block inputs.
func groupOrder(gidx []int32, groups, block int) (perm []int32, ok bool) {
	count, sorted := make([]int, groups), true
	for i, gi := range gidx {
		count[gi]++
		sorted = sorted && int(gi) == i/block
	}
	for _, c := range count {
		if c != block {
			return nil, false
		}
	}
	if sorted {
		return nil, true
	}
	perm, next := make([]int32, len(gidx)), make([]int, groups)
	for gr := range next {
		next[gr] = gr * block
	}
	for i, gi := range gidx {
		perm[next[gi]] = int32(i)
		next[gi]++
	}
	return perm, true
}

// nibblesInto writes g's codes [In, Out] as [Out, In] nibbles: packed
// column j (input perm[j], or j for a nil perm) of output o in byte
// (o·In+j)/2, the high nibble when j is even (In even).
func (g *GroupQuant) nibblesInto(dst []byte, perm []int32) {
	half := g.In / 2
	row := func(j int) []uint8 {
		if perm != nil {
			j = int(perm[j])
		}
		return g.Codes[j*g.Out : (j+1)*g.Out]
	}
	for j := 0; j < g.In; j += 2 {
		hi, lo := row(j), row(j+1)
		for o := range g.Out {
			dst[o*half+j/2] = hi[o]<<4 | lo[o]&0xF
		}
	}
}

// int4Exact reports whether every code q of a block with scale s and zero
// z dequantizes packed (fl(fl(q·s) + fl(−s·z))) to the bits of
// fl(s·(q − z)): always for a positive s of at most 11 significant bits
// and moderate size (the comment above), else checked for each code. (A
// code equal to a zero gives +0 packed, −0 from a negative scale.)
func int4Exact(s float32, z int32) bool {
	if s > 0 && s < 0x1p100 && math.Float32bits(s)&0x1FFF == 0 && z >= 0 && z <= 16 {
		return true
	}
	off := -s * float32(z)
	for q := range int32(16) {
		if math.Float32bits(float32(float32(float32(q)*s)+off)) != math.Float32bits(s*float32(q-z)) {
			return false
		}
	}
	return true
}

// q4Weight implements q4Source: GPTQ or AWQ 4-bit weight name as a
// Q4Weight where GroupQuant.Q4 packs it (ok false otherwise: it is then
// dequantized at load), the mapped pages of its packed codes dropped. The
// unpacked codes live in s.scratch, reused by the next weight (so loading
// peaks near the packed weights, not twice them with the garbage).
func (s *intQuantSet) q4Weight(name string) (*Q4Weight, bool, error) {
	w, ok := s.weights[name]
	if !ok || s.q4Where() == "" {
		return nil, false, nil
	}
	s.scratchMu.Lock()
	defer s.scratchMu.Unlock()
	g, err := s.groupQuant(w, &s.scratch)
	if err != nil {
		return nil, false, err
	}
	q, _ := g.Q4()
	if q == nil {
		return nil, false, nil
	}
	if raw, err := s.Set.Bytes(w.module + ".qweight"); err == nil {
		releaseBytes(raw)
	}
	return q, true, nil
}

// q4Where implements q4Source: GPTQ and AWQ 4-bit weights pack where
// their groups are of equal sizes.
func (s *intQuantSet) q4Where() string {
	if s.q.Method == "bitsandbytes" || s.q.Bits != 4 {
		return ""
	}
	return "where their groups are of equal sizes"
}
