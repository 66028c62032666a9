package plan

import "slices"

// packTrie is the prefix tree over a call's item inputs (pack.go). Node 0
// is the root, covering nothing; every other node covers the unpacked
// positions [start, end) that all items below it share, and every item
// ends at a leaf (several items with the same input share one).
type packTrie struct {
	nodes  []trieNode
	leaves []int // leaf nodes in depth-first order
	align  int   // node alignment in a row (pack.go)
}

// trieNode is one node of a packTrie.
type trieNode struct {
	start, end int
	parent     int   // -1 for the root
	children   []int // in canonical order of their inputs
	items      []int // items whose input ends here (leaves only)
	rep        int   // an item whose input passes through the node
}

// buildTrie builds the trie over items[members] (the order of members does
// not matter: they are sorted canonically first) for rows whose nodes are
// aligned to align columns.
func buildTrie(items []Item, members []int, align int) *packTrie {
	members = slices.Clone(members)
	slices.SortFunc(members, func(a, b int) int { return compareItems(items[a], items[b]) })
	tr := &packTrie{nodes: []trieNode{{parent: -1, rep: -1}}, align: max(align, 1)}
	path := []int{0} // the root … the previous item's leaf
	var prev []int32
	for _, i := range members {
		inp := items[i].Input
		l := CommonPrefix(prev, inp)
		if prev != nil && l == len(prev) && l == len(inp) { // same input
			leaf := path[len(path)-1]
			tr.nodes[leaf].items = append(tr.nodes[leaf].items, i)
			continue
		}
		for len(path) > 1 && tr.nodes[path[len(path)-1]].start >= l {
			path = path[:len(path)-1]
		}
		top := path[len(path)-1]
		if tr.nodes[top].end > l {
			tr.split(top, l)
		}
		path = append(path, tr.add(top, l, len(inp), i))
		prev = inp
	}
	tr.settle(0)
	return tr
}

// CommonPrefix is the length of the longest common prefix of a and b.
func CommonPrefix(a, b []int32) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// add appends a child [start, end) of parent holding item i.
func (tr *packTrie) add(parent, start, end, i int) int {
	tr.nodes = append(tr.nodes, trieNode{start: start, end: end, parent: parent, items: []int{i}, rep: i})
	n := len(tr.nodes) - 1
	tr.nodes[parent].children = append(tr.nodes[parent].children, n)
	return n
}

// split cuts node n at position at: n keeps [start, at) and gets one child
// [at, end) that takes n's children and items.
func (tr *packTrie) split(n, at int) {
	old := tr.nodes[n]
	tr.nodes = append(tr.nodes, trieNode{start: at, end: old.end, parent: n, children: old.children, items: old.items, rep: old.rep})
	c := len(tr.nodes) - 1
	for _, ch := range old.children {
		tr.nodes[ch].parent = c
	}
	tr.nodes[n] = trieNode{start: old.start, end: at, parent: old.parent, children: []int{c}, rep: old.rep}
}

// settle gives the items of an inner node their own empty leaf (first: its
// input is a prefix of its siblings') and lists the leaves in depth-first
// order.
func (tr *packTrie) settle(root int) {
	stack := []int{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nd := &tr.nodes[n]
		if len(nd.items) > 0 && len(nd.children) > 0 {
			leaf := trieNode{start: nd.end, end: nd.end, parent: n, items: nd.items, rep: nd.items[0]}
			nd.items = nil
			tr.nodes = append(tr.nodes, leaf)
			nd = &tr.nodes[n]
			nd.children = append([]int{len(tr.nodes) - 1}, nd.children...)
		}
		if len(nd.children) == 0 && n != root {
			tr.leaves = append(tr.leaves, n)
		}
		for _, c := range slices.Backward(nd.children) {
			stack = append(stack, c)
		}
	}
}

// up and down round n up and down to a multiple of the alignment.
func (tr *packTrie) up(n int) int   { return (n + tr.align - 1) / tr.align * tr.align }
func (tr *packTrie) down(n int) int { return n / tr.align * tr.align }

// leaf reports whether n is a leaf.
func (tr *packTrie) leaf(n int) bool { return len(tr.nodes[n].children) == 0 }

// span is the unpacked positions node n lays out: [⌊start⌋, ⌊end⌋) for an
// inner node, [⌊start⌋, end) for a leaf (⌊x⌋: x rounded down to the
// alignment).
func (tr *packTrie) span(n int) (from, to int) {
	nd := tr.nodes[n]
	if tr.leaf(n) {
		return tr.down(nd.start), nd.end
	}
	return tr.down(nd.start), tr.down(nd.end)
}

// size is the columns node n takes in a row (its span, aligned).
func (tr *packTrie) size(n int) int {
	from, to := tr.span(n)
	return tr.up(to - from)
}

// owner is the node on leaf's path whose span holds position q < end.
func (tr *packTrie) owner(leaf, q int) int {
	n := leaf
	for tr.down(tr.nodes[n].start) > q {
		n = tr.nodes[n].parent
	}
	return n
}

// packRows places the leaves, in depth-first order, into rows of capacity
// columns (next fit): a leaf adds the nodes of its path that its row does
// not hold yet, and opens a new row (with its whole path) when they do
// not fit. Items of leaves whose path alone exceeds capacity are returned
// unpacked. With top (prefix.go), a leaf below a cached prefix node
// goes to a row of that prefix, which holds only the nodes below it.
func (tr *packTrie) packRows(capacity int, top []int) (rows []packRow, unpacked []int) {
	inRow := make([]int, len(tr.nodes)) // 1 + the row a node was last placed in
	var fresh []int
	for _, leaf := range tr.leaves {
		cost, stop := 0, 0
		if top != nil {
			stop = top[leaf]
		}
		fresh = fresh[:0]
		same := len(rows) > 0 && rows[len(rows)-1].prefix == stop
		if same {
			cost, fresh = tr.missing(leaf, stop, inRow, len(rows), fresh)
		}
		if !same || rows[len(rows)-1].used+cost > capacity {
			cost, fresh = tr.missing(leaf, stop, inRow, len(rows)+1, fresh[:0])
			if cost > capacity {
				unpacked = append(unpacked, tr.nodes[leaf].items...)
				continue
			}
			rows = append(rows, packRow{prefix: stop})
		}
		r := &rows[len(rows)-1]
		for _, n := range slices.Backward(fresh) {
			r.nodes = append(r.nodes, n)
			inRow[n] = len(rows)
		}
		r.used += cost
	}
	return rows, unpacked
}

// missing appends to fresh the nodes of leaf's path (leaf first, root and
// stop, a cached prefix, and their ancestors excluded) not yet in row
// (1-based) and returns their columns.
func (tr *packTrie) missing(leaf, stop int, inRow []int, row int, fresh []int) (int, []int) {
	cost := 0
	for n := leaf; n > 0 && n != stop && inRow[n] != row; n = tr.nodes[n].parent {
		fresh = append(fresh, n)
		cost += tr.size(n)
	}
	return cost, fresh
}

// rowEnds numbers a row's nodes 1, 2, … in their (pre)order and returns,
// for each, one past the number of its last descendant in the row.
func (tr *packTrie) rowEnds(nodes []int) []int {
	ends := make([]int, len(nodes))
	var open []int // indices into nodes: the current path
	for k, n := range nodes {
		for len(open) > 0 && nodes[open[len(open)-1]] != tr.nodes[n].parent {
			ends[open[len(open)-1]] = k + 1
			open = open[:len(open)-1]
		}
		open = append(open, k)
	}
	for _, k := range open {
		ends[k] = len(nodes) + 1
	}
	return ends
}
