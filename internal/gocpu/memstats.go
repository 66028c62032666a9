package gocpu

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
)

// Memory statistics: when on, every execution adds up the storage its
// nodes allocate (the intermediates and outputs it owns: not its inputs,
// constants, aliases or in-place writes) from the node that computes it to
// the node after which the plan releases it, and keeps its peak. So a
// graph whose live storage grows with the row length shows which values
// are live at its peak (`goeval bench … --mem-profile`, and the tests that
// bound a long prefill's working set). Off by default.
var memStats struct {
	on atomic.Bool
	mu sync.Mutex
	s  MemStat
}

// MemStat is the largest working set of the executions since SetMemStats.
type MemStat struct {
	// Peak is the most intermediate bytes one execution held at once, and
	// Executions how many executions ran.
	Peak       int64
	Executions int
	// Largest is the largest single value an execution allocated, and
	// LargestKey its "Op out ← in…".
	Largest    int64
	LargestKey string
	// AtPeak lists the values live at Peak, largest first (at most 24).
	AtPeak []MemValue
}

// MemValue is one value live at an execution's peak.
type MemValue struct {
	Key   string // "Op out ← in…"
	Bytes int64
	Node  int // its index in the graph (the order nodes run in)
}

// SetMemStats turns memory statistics on or off; turning them on clears
// them.
func SetMemStats(on bool) {
	memStats.mu.Lock()
	defer memStats.mu.Unlock()
	if on {
		memStats.s = MemStat{}
	}
	memStats.on.Store(on)
}

// MemStats returns the statistics gathered since SetMemStats(true).
func MemStats() MemStat {
	memStats.mu.Lock()
	defer memStats.mu.Unlock()
	s := memStats.s
	s.AtPeak = slices.Clone(s.AtPeak)
	return s
}

// memTrack follows one execution's live storage (nil: statistics off).
type memTrack struct {
	live, peak int64
	bytes      []int64 // per node: the bytes counted live (0: none)
	largest    int64
	largestAt  int
	atPeak     []MemValue
	nodes      []*node
}

func newMemTrack(nodes []*node) *memTrack {
	if !memStats.on.Load() {
		return nil
	}
	return &memTrack{bytes: make([]int64, len(nodes)), nodes: nodes, largestAt: -1}
}

// alloc counts node i's new storage of n bytes live.
func (m *memTrack) alloc(i int, n int64) {
	if m == nil || n <= 0 {
		return
	}
	m.bytes[i] = n
	m.live += n
	if n > m.largest {
		m.largest, m.largestAt = n, i
	}
	if m.live > m.peak {
		m.peak = m.live
		m.snapshot()
	}
}

// release counts node r's storage free.
func (m *memTrack) release(r int) {
	if m == nil {
		return
	}
	m.live -= m.bytes[r]
	m.bytes[r] = 0
}

// snapshot records the values live now (a new peak).
func (m *memTrack) snapshot() {
	m.atPeak = m.atPeak[:0]
	for i, n := range m.bytes {
		if n > 0 {
			m.atPeak = append(m.atPeak, MemValue{Bytes: n, Node: i})
		}
	}
}

// done merges this execution into the statistics.
func (m *memTrack) done() {
	if m == nil {
		return
	}
	memStats.mu.Lock()
	defer memStats.mu.Unlock()
	s := &memStats.s
	s.Executions++
	if m.largest > s.Largest {
		s.Largest, s.LargestKey = m.largest, opKey(m.nodes[m.largestAt])
	}
	if m.peak <= s.Peak {
		return
	}
	s.Peak = m.peak
	slices.SortFunc(m.atPeak, func(a, b MemValue) int { return cmp.Compare(b.Bytes, a.Bytes) })
	s.AtPeak = s.AtPeak[:0]
	for _, v := range m.atPeak[:min(24, len(m.atPeak))] {
		v.Key = opKey(m.nodes[v.Node])
		s.AtPeak = append(s.AtPeak, v)
	}
}

// WriteMemStats prints the statistics: the peak and the values live at it.
func WriteMemStats(w io.Writer) {
	s := MemStats()
	fmt.Fprintf(w, "memory profile: %d executions, peak %.1f MiB of intermediates, largest %.1f MiB (%s)\n",
		s.Executions, mib(s.Peak), mib(s.Largest), s.LargestKey)
	for _, v := range s.AtPeak {
		fmt.Fprintf(w, "%9.1f MiB  #%d %s\n", mib(v.Bytes), v.Node, v.Key)
	}
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }
