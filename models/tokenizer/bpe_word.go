package tokenizer

import (
	"hash/maphash"
	"sync"
	"unicode/utf8"
)

// symbol is one node of the doubly linked list a word is merged in.
type symbol struct {
	id         int32
	prev, next int32
	size       int32 // bytes of the original piece; 0 once merged away
}

// mergeItem is a candidate merge; the heap pops the lowest rank, then the
// lowest position, like the Rust BinaryHeap of Merge.
type mergeItem struct{ rank, pos, newID int32 }

type mergeHeap []mergeItem

func (h mergeHeap) less(i, j int) bool {
	return h[i].rank < h[j].rank || (h[i].rank == h[j].rank && h[i].pos < h[j].pos)
}

func (h *mergeHeap) push(x mergeItem) {
	*h = append(*h, x)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *mergeHeap) pop() mergeItem {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && s.less(l, m) {
			m = l
		}
		if r < n && s.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// mergeAll applies the merges to syms in rank order (Rust Word::merge_all)
// and appends the surviving ids to out.
func (b *bpe) mergeAll(syms []symbol, out []int32) []int32 {
	h := make(mergeHeap, 0, len(syms))
	for i := 0; i+1 < len(syms); i++ {
		if m, ok := b.merges[pairKey(syms[i].id, syms[i+1].id)]; ok {
			h.push(mergeItem{m.rank, int32(i), m.newID})
		}
	}
	for len(h) > 0 {
		top := h.pop()
		cur := &syms[top.pos]
		if cur.size == 0 || cur.next == -1 {
			continue
		}
		nextPos := cur.next
		right := syms[nextPos]
		if m, ok := b.merges[pairKey(cur.id, right.id)]; !ok || m.newID != top.newID {
			continue
		}
		cur.id, cur.size, cur.next = top.newID, cur.size+right.size, right.next
		syms[nextPos].size = 0
		if right.next > -1 && int(right.next) < len(syms) {
			syms[right.next].prev = top.pos
		}
		if cur.prev >= 0 {
			if m, ok := b.merges[pairKey(syms[cur.prev].id, cur.id)]; ok {
				h.push(mergeItem{m.rank, cur.prev, m.newID})
			}
		}
		if cur.next >= 0 && int(cur.next) < len(syms) {
			if m, ok := b.merges[pairKey(cur.id, syms[cur.next].id)]; ok {
				h.push(mergeItem{m.rank, top.pos, m.newID})
			}
		}
	}
	for _, s := range syms {
		if s.size != 0 {
			out = append(out, s.id)
		}
	}
	return out
}

// symbolList builds the linked list for ids with the given byte sizes.
func appendSymbol(syms []symbol, id, size int32) []symbol {
	n := int32(len(syms))
	return append(syms, symbol{id: id, prev: n - 1, next: n + 1, size: size})
}

func finishSymbols(syms []symbol) []symbol {
	if len(syms) > 0 {
		syms[len(syms)-1].next = -1
	}
	return syms
}

// encodeByteLevel tokenizes one byte-level piece given as raw bytes.
func (b *bpe) encodeByteLevel(raw string, out []int32) []int32 {
	if raw == "" {
		return out
	}
	if ids, ok := b.blCache.get(raw); ok {
		return append(out, ids...)
	}
	start := len(out)
	if id, ok := b.rawVocab[raw]; ok && b.ignoreMrg {
		out = append(out, id)
	} else {
		syms := make([]symbol, 0, len(raw))
		for i := 0; i < len(raw); i++ {
			id := b.byteLevelIDs[raw[i]]
			if id < 0 {
				// A byte whose character is missing from the vocab: fall back
				// to the generic path on the mapped string.
				return b.encodeChars(rawToByteLevel(raw), out[:start])
			}
			syms = appendSymbol(syms, id, 1)
		}
		out = b.mergeAll(finishSymbols(syms), out)
	}
	b.blCache.put(raw, out[start:])
	return out
}

// encodeChars tokenizes one piece character by character (Rust
// BPE::merge_word with byte_fallback, unk and fuse_unk).
func (b *bpe) encodeChars(w string, out []int32) []int32 {
	if w == "" {
		return out
	}
	if ids, ok := b.cache.get(w); ok {
		return append(out, ids...)
	}
	start := len(out)
	if id, ok := b.vocab[w]; ok && b.ignoreMrg {
		out = append(out, id)
	} else {
		out = b.mergeAll(finishSymbols(b.initialSymbols(w)), out)
	}
	b.cache.put(w, out[start:])
	return out
}

// initialSymbols maps each character of w to a vocab id, with byte
// fallback and unknown-token handling.
func (b *bpe) initialSymbols(w string) []symbol {
	syms := make([]symbol, 0, len(w))
	unkID, unkLen := int32(-1), int32(0)
	for i := 0; i < len(w); {
		_, n := utf8.DecodeRuneInString(w[i:])
		s := w[i : i+n]
		isFirst, isLast := i == 0, i+n == len(w)
		i += n
		if !isFirst && b.prefix != "" {
			s = b.prefix + s
		}
		if isLast && b.suffix != "" {
			s += b.suffix
		}
		if id, ok := b.vocab[s]; ok {
			if unkID >= 0 {
				syms = appendSymbol(syms, unkID, unkLen)
				unkID = -1
			}
			syms = appendSymbol(syms, id, int32(n))
			continue
		}
		if b.byteFall && b.allBytesKnown(s) {
			for j := 0; j < len(s); j++ {
				syms = appendSymbol(syms, b.byteTokens[s[j]], 1)
			}
			continue
		}
		if b.unkID >= 0 {
			switch {
			case unkID >= 0 && b.fuseUnk:
				unkLen += int32(n)
			case unkID >= 0:
				syms = appendSymbol(syms, unkID, unkLen)
				unkLen = int32(n)
			default:
				unkID, unkLen = b.unkID, int32(n)
			}
		}
	}
	if unkID >= 0 {
		syms = appendSymbol(syms, unkID, unkLen)
	}
	return syms
}

func (b *bpe) allBytesKnown(s string) bool {
	for j := 0; j < len(s); j++ {
		if b.byteTokens[s[j]] < 0 {
			return false
		}
	}
	return true
}

// wordCache memoizes the ids of short words, sharded for concurrent use.
// Like the Rust cache it stops growing at a fixed capacity.
type wordCache struct {
	seed   maphash.Seed
	shards [16]cacheShard
}

type cacheShard struct {
	mu sync.RWMutex
	m  map[string][]int32
}

const (
	cacheShardCap = 4096
	cacheMaxKey   = 256
)

func newWordCache() *wordCache {
	c := &wordCache{seed: maphash.MakeSeed()}
	for i := range c.shards {
		c.shards[i].m = make(map[string][]int32)
	}
	return c
}

func (c *wordCache) shard(k string) *cacheShard {
	return &c.shards[maphash.String(c.seed, k)&15]
}

// get looks k up.
func (c *wordCache) get(k string) ([]int32, bool) {
	if len(k) >= cacheMaxKey {
		return nil, false
	}
	s := c.shard(k)
	s.mu.RLock()
	ids, ok := s.m[k]
	s.mu.RUnlock()
	return ids, ok
}

// put stores a copy of ids under k while the shard has room.
func (c *wordCache) put(k string, ids []int32) {
	if len(k) >= cacheMaxKey {
		return
	}
	s := c.shard(k)
	s.mu.Lock()
	if len(s.m) < cacheShardCap {
		s.m[k] = append([]int32(nil), ids...)
	}
	s.mu.Unlock()
}
