// This file is an exact port of CPython's random.Random (MT19937 with
// init_by_array seeding) for the methods lm-eval's few-shot sampler and
// bootstrap stderr use: seeding from an int, random(), getrandbits,
// _randbelow, choices (unweighted), sample and shuffle. Same seed, same
// sequence as Python 3.
package py

import "math"

const (
	n         = 624
	m         = 397
	matrixA   = 0x9908b0df
	upperMask = 0x80000000
	lowerMask = 0x7fffffff
)

// Rand is a CPython-compatible Mersenne Twister. The zero value is not
// seeded; use NewRand.
type Rand struct {
	mt  [n]uint32
	mti int
}

// New returns a generator seeded like Python's random.Random(seed).
func NewRand(seed int64) *Rand {
	r := &Rand{}
	r.Seed(seed)
	return r
}

// Seed reseeds like random.seed(int): the key is the 32-bit little-endian
// words of abs(seed) ([0] for 0), fed to init_by_array.
func (r *Rand) Seed(seed int64) {
	u := uint64(seed)
	if seed < 0 {
		u = uint64(-seed) // abs; -MinInt64 wraps to itself, which is its abs as uint64
	}
	key := []uint32{uint32(u)}
	if hi := uint32(u >> 32); hi != 0 {
		key = append(key, hi)
	}
	r.initByArray(key)
}

func (r *Rand) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < n; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.mti = n
}

func (r *Rand) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	k := n
	if len(key) > k {
		k = len(key)
	}
	for ; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k = n - 1; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
}

// Uint32 returns the next raw 32-bit output (genrand_uint32).
func (r *Rand) Uint32() uint32 {
	if r.mti >= n {
		r.twist()
	}
	y := r.mt[r.mti]
	r.mti++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

func (r *Rand) twist() {
	for kk := 0; kk < n; kk++ {
		y := (r.mt[kk] & upperMask) | (r.mt[(kk+1)%n] & lowerMask)
		v := r.mt[(kk+m)%n] ^ (y >> 1)
		if y&1 != 0 {
			v ^= matrixA
		}
		r.mt[kk] = v
	}
	r.mti = 0
}

// Random returns a float in [0, 1) exactly as random.random().
func (r *Rand) Random() float64 {
	a := r.Uint32() >> 5
	b := r.Uint32() >> 6
	return (float64(a)*67108864.0 + float64(b)) * (1.0 / 9007199254740992.0)
}

// GetRandBits returns random.getrandbits(k) for 0 <= k <= 64: 32-bit words
// least significant first, the last one shifted right to keep k bits.
func (r *Rand) GetRandBits(k int) uint64 {
	if k <= 0 {
		return 0
	}
	if k <= 32 {
		return uint64(r.Uint32() >> (32 - k))
	}
	lo := uint64(r.Uint32())
	hi := uint64(r.Uint32() >> (64 - k))
	return lo | hi<<32
}

// RandBelow returns random._randbelow(n): rejection sampling with
// getrandbits(n.bit_length()). n <= 0 returns 0.
func (r *Rand) RandBelow(n int) int {
	if n <= 0 {
		return 0
	}
	k := bitLength(uint64(n))
	v := r.GetRandBits(k)
	for v >= uint64(n) {
		v = r.GetRandBits(k)
	}
	return int(v)
}

func bitLength(x uint64) int {
	b := 0
	for x != 0 {
		b++
		x >>= 1
	}
	return b
}

// ChoicesIndex returns the indices random.choices(population, k=k) would
// pick from a population of size n (no weights): floor(random()*n) each.
func (r *Rand) ChoicesIndex(n, k int) []int {
	out := make([]int, k)
	fn := float64(n)
	for i := range out {
		out[i] = int(math.Floor(r.Random() * fn))
	}
	return out
}

// SampleIndex returns the indices random.sample(range(n), k) picks, in
// order (CPython 3.11 algorithm: pool swap for small n, rejection set for
// large n). It panics if k is outside [0, n], as Python raises ValueError.
func (r *Rand) SampleIndex(n, k int) []int {
	if k < 0 || k > n {
		panic("pyrand: sample larger than population or is negative")
	}
	out := make([]int, k)
	setsize := 21
	if k > 5 {
		setsize += int(math.Pow(4, math.Ceil(math.Log(float64(k*3))/math.Log(4))))
	}
	if n <= setsize {
		pool := make([]int, n)
		for i := range pool {
			pool[i] = i
		}
		for i := 0; i < k; i++ {
			j := r.RandBelow(n - i)
			out[i] = pool[j]
			pool[j] = pool[n-i-1]
		}
		return out
	}
	selected := make(map[int]bool, k)
	for i := 0; i < k; i++ {
		j := r.RandBelow(n)
		for selected[j] {
			j = r.RandBelow(n)
		}
		selected[j] = true
		out[i] = j
	}
	return out
}

// Shuffle permutes n items like random.shuffle, calling swap(i, j).
func (r *Rand) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		j := r.RandBelow(i + 1)
		swap(i, j)
	}
}

// ChoicesInto fills idx with the indices random.choices(population,
// k=len(idx)) would pick from a population of len(idx) items (lm-eval's
// bootstrap resample), without allocating.
func (r *Rand) ChoicesInto(idx []int) {
	fn := float64(len(idx))
	for i := range idx {
		idx[i] = int(math.Floor(r.Random() * fn))
	}
}
