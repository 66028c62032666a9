package plan

// Packing under cached prefixes (the engine keeps their keys and values:
// engine/prefixkv.go). After a first packing, a
// trie node that sits in two rows or more — its ids laid out again at the
// head of each — is a cached prefix when it is long enough
// (minCachedPrefix), every item below it scores only tokens after it, and
// its keys and values fit the store: the topmost such node on a path
// wins, and the leaves below it are packed again into rows of their own
// that start below it and attend to it instead. The prefix is the ids
// that the node and its ancestors lay out, [0, ⌊end⌋), so a row's nodes
// start where they would after it in an ordinary packed row, at the same
// offsets modulo the alignment. The packing with cached prefixes is kept
// when its estimated cost (its rows, plus each prefix run once) is below
// the ordinary packing's.

// MinCachedPrefix is the shortest prefix worth caching.
const MinCachedPrefix = 64

// PrefixRule says how a cached prefix of p tokens is laid out (Slots: its
// padded length) and whether one of pb slots fits the store.
type PrefixRule struct {
	Slots func(p int) int
	Fits  func(pb int) bool
}

// prefixLen is the number of prefix ids cached for node n.
func (tr *packTrie) prefixLen(n int) int { return tr.down(tr.nodes[n].end) }

// cachedNodes returns, for every node, the cached prefix node above it or
// itself (0: none), and the cached nodes in depth-first order; rows is an
// ordinary packing.
func (tr *packTrie) cachedNodes(items []Item, rows []packRow, rule PrefixRule) (top, cached []int) {
	inRows := make([]int, len(tr.nodes))
	for _, r := range rows {
		for _, n := range r.nodes {
			inRows[n]++
		}
	}
	first := tr.firstScored(items)
	top = make([]int, len(tr.nodes))
	var walk func(n, above int)
	walk = func(n, above int) {
		if above == 0 && n != 0 && !tr.leaf(n) && inRows[n] >= 2 {
			p := tr.prefixLen(n)
			if p >= MinCachedPrefix && first[n] >= p && rule.Fits(rule.Slots(p)) {
				above = n
				cached = append(cached, n)
			}
		}
		top[n] = above
		for _, c := range tr.nodes[n].children {
			walk(c, above)
		}
	}
	walk(0, 0)
	return top, cached
}

// firstScored is, for every node, the smallest position scored by an item
// below it (len(inp) − len(targets): the last context token's).
func (tr *packTrie) firstScored(items []Item) []int {
	first := make([]int, len(tr.nodes))
	var walk func(n int) int
	walk = func(n int) int {
		m := int(^uint(0) >> 1)
		for _, i := range tr.nodes[n].items {
			m = min(m, len(items[i].Input)-len(items[i].Targets))
		}
		for _, c := range tr.nodes[n].children {
			m = min(m, walk(c))
		}
		first[n] = m
		return m
	}
	walk(0)
	return first
}

// planCost is the estimated cost of rows of capacity columns (rowCost),
// each attending to its cached prefix too, plus each cached prefix run
// once.
func (tr *packTrie) planCost(rows []packRow, cached []int, capacity, attnKeys int, sr Shapes, rule PrefixRule) float64 {
	cost := 0.0
	for _, row := range rows {
		t, past := sr.T(row.used, capacity), 0
		if row.prefix != 0 {
			past = rule.Slots(tr.prefixLen(row.prefix))
		}
		cost += float64(t) * (1 + float64(past+t)/float64(max(attnKeys, 1)))
	}
	for _, n := range cached {
		cost += rowCost(rule.Slots(tr.prefixLen(n)), attnKeys)
	}
	return cost
}

// prefixTokens is the ids of the plan's cached prefixes, each run once.
func (pl *packPlan) prefixTokens() int {
	n := 0
	for _, c := range pl.cached {
		n += pl.trie.prefixLen(c)
	}
	return n
}

// layoutPrefixes fills l's prefix inputs for After pass p: row r attends
// to its prefix (numbered as in p.Prefixes) at positions 0…P-1 of its Pb
// slots; padding slots and rows without a prefix get positions no token
// sees (prefixPositions).
func (pl *packPlan) layoutPrefixes(l *Layout, p *Pass) {
	index := map[int]int32{}
	for _, r := range p.rows {
		if _, ok := index[r.prefix]; r.prefix != 0 && !ok {
			index[r.prefix] = int32(len(index))
		}
	}
	pb := pl.pb
	for r := range p.B {
		n := 0
		if r < len(p.rows) && p.rows[r].prefix != 0 {
			n, l.RowPrefix[r] = pl.trie.prefixLen(p.rows[r].prefix), index[p.rows[r].prefix]
		}
		copy(l.PrefixPos[r*pb:], prefixPositions(n, pb))
	}
}
