package engine

import (
	"math"

	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// The store of cached prefixes (prefixkv.go): entries of K and V tensors
// under their ids' key, within a byte budget, least recently used evicted
// first, never one that a pass is using.

// prefixStore is an Engine's cached prefixes: at most budget bytes, least
// recently used evicted first.
type prefixStore struct {
	budget, used, peak int64
	clock              int64
	entries            map[string]*prefixEntry
}

// pin and unpin mark an entry in use by a pass: evict skips it.
func (s *prefixStore) pin(key string)   { s.entries[key].pins++ }
func (s *prefixStore) unpin(key string) { s.entries[key].pins-- }

// prefixEntry is one cached prefix: 2L tensors (K and V per layer) of
// [1, K, Pb, D].
type prefixEntry struct {
	kv    []*tensors.Tensor
	bytes int64
	last  int64
	pins  int // passes using it now
}

// newPrefixes returns the store Options ask for: nil with packing or the
// cache off.
func (e *Engine) newPrefixes() *prefixStore {
	mb := e.opts.PrefixCacheMB
	if mb == 0 {
		mb = DefaultPrefixCacheMB
	}
	if mb < 0 || !e.opts.packing() {
		return nil
	}
	return &prefixStore{budget: int64(mb) << 20, entries: map[string]*prefixEntry{}}
}

// peakBytes is the most the store has held.
func (s *prefixStore) peakBytes() int64 {
	if s == nil {
		return 0
	}
	return s.peak
}

// fits reports whether an entry of n bytes can be cached at all.
func (s *prefixStore) fits(n int64) bool { return s != nil && n <= s.budget }

// get returns the entry under key (nil if absent) and marks it used.
func (s *prefixStore) get(key string) []*tensors.Tensor {
	if s == nil {
		return nil
	}
	en := s.entries[key]
	if en == nil {
		return nil
	}
	s.clock++
	en.last = s.clock
	return en.kv
}

// put stores kv under key, evicting the least recently used entries not
// in use until it fits; it reports false (and stores nothing) when it
// cannot fit.
func (s *prefixStore) put(key string, kv []*tensors.Tensor, n int64) bool {
	if !s.fits(n) {
		return false
	}
	for s.used+n > s.budget {
		if !s.evict() {
			return false
		}
	}
	s.clock++
	s.entries[key] = &prefixEntry{kv: kv, bytes: n, last: s.clock}
	s.used += n
	s.peak = max(s.peak, s.used)
	return true
}

// evict frees the least recently used entry not in use; false if there
// is none.
func (s *prefixStore) evict() bool {
	oldest, at := "", int64(math.MaxInt64)
	for k, en := range s.entries {
		if en.pins == 0 && en.last < at {
			oldest, at = k, en.last
		}
	}
	en := s.entries[oldest]
	if en == nil {
		return false
	}
	delete(s.entries, oldest)
	s.used -= en.bytes
	freeAll(en.kv)
	return true
}

// close frees every entry.
func (s *prefixStore) close() {
	if s == nil {
		return
	}
	for k, en := range s.entries {
		freeAll(en.kv)
		delete(s.entries, k)
	}
	s.used = 0
}

// freeAll frees tensors.
func freeAll(ts []*tensors.Tensor) {
	for _, t := range ts {
		_ = t.FinalizeAll()
	}
}
