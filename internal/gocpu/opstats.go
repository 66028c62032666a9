package gocpu

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Op statistics: when on, every node an execution runs is timed and the
// time added up by op and shapes (output ← inputs), so a slow graph shows
// which op at which shape costs what (`goeval bench … --op-profile`).
// Off by default: the timing is two clock reads per node.
var opStats struct {
	on atomic.Bool
	mu sync.Mutex
	m  map[string]*OpStat
}

// OpStat is the time spent in one op at one set of shapes.
type OpStat struct {
	Key   string // "Op out ← in0, in1 …"
	Calls int
	Time  time.Duration
}

// SetOpStats turns op timing on or off; turning it on clears the table.
func SetOpStats(on bool) {
	opStats.mu.Lock()
	defer opStats.mu.Unlock()
	if on {
		opStats.m = map[string]*OpStat{}
	}
	opStats.on.Store(on)
}

// recordOp adds d to node nd's entry. The entry's key is formatted once
// per node (statKey), not on every run.
func recordOp(nd *node, d time.Duration) {
	opStats.mu.Lock()
	defer opStats.mu.Unlock()
	if nd.statKey == "" {
		nd.statKey = opKey(nd)
	}
	s := opStats.m[nd.statKey]
	if s == nil {
		s = &OpStat{Key: nd.statKey}
		opStats.m[nd.statKey] = s
	}
	s.Calls++
	s.Time += d
}

// opKey is "Op out ← in0, in1 …".
func opKey(nd *node) string {
	var sb strings.Builder
	op := nd.op.String()
	if nd.fused != "" {
		op = nd.fused
	}
	fmt.Fprintf(&sb, "%s %s ←", op, nd.shape)
	for i, in := range nd.inputs {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, " %s", in.shape)
	}
	return sb.String()
}

// OpStats returns the table, most time first.
func OpStats() []OpStat {
	opStats.mu.Lock()
	defer opStats.mu.Unlock()
	out := make([]OpStat, 0, len(opStats.m))
	for _, s := range opStats.m {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b OpStat) int { return cmp.Compare(b.Time, a.Time) })
	return out
}

// WriteOpStats prints the top n entries of the table with each one's share
// of the total, then the total by op.
func WriteOpStats(w io.Writer, n int) {
	stats := OpStats()
	var total time.Duration
	byOp := map[string]time.Duration{}
	for _, s := range stats {
		total += s.Time
		byOp[strings.Fields(s.Key)[0]] += s.Time
	}
	if total == 0 {
		fmt.Fprintln(w, "op profile: no gocpu op ran")
		return
	}
	fmt.Fprintf(w, "op profile: %.2f s in gocpu ops\n", total.Seconds())
	for _, s := range stats[:min(n, len(stats))] {
		fmt.Fprintf(w, "%6.2f%% %9.3fs %6d× %s\n", 100*s.Time.Seconds()/total.Seconds(), s.Time.Seconds(), s.Calls, s.Key)
	}
	ops := make([]OpStat, 0, len(byOp))
	for k, d := range byOp {
		ops = append(ops, OpStat{Key: k, Time: d})
	}
	slices.SortFunc(ops, func(a, b OpStat) int { return cmp.Compare(b.Time, a.Time) })
	for _, s := range ops {
		fmt.Fprintf(w, "%6.2f%% %9.3fs  %s (all shapes)\n", 100*s.Time.Seconds()/total.Seconds(), s.Time.Seconds(), s.Key)
	}
}
