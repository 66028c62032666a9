package metrics

import (
	"math"
	"slices"
	"strings"

	"github.com/goeval/goeval/internal/py"
)

// Corpus TER as lm-eval's ter aggregation computes it with sacrebleu 2.x's
// defaults (tercom tokenization, case-insensitive, no normalization): the
// edits (word insertions, deletions, substitutions and block shifts, found
// with Tercom's beam-limited edit distance and greedy shift search) over all
// documents, divided by the reference words, times 100.

const (
	terMaxShiftSize       = 10
	terMaxShiftDist       = 50
	terBeamWidth          = 25
	terMaxShiftCandidates = 1000
	terInfinity           = int(1e16)
)

// Edit operations of a trace: no change, substitution, insertion, deletion.
const (
	opNop = ' '
	opSub = 's'
	opIns = 'i'
	opDel = 'd'
)

// CorpusTER is sacrebleu.corpus_ter(preds, [refs]).score.
func CorpusTER(pairs [][2]string) float64 { return corpusScore(AggTER, pairs) }

// terStats are one pair's [edits, reference words].
func terStats(p [2]string) []int {
	e, n := translationEditRate(terTokens(p[1]), terTokens(p[0]))
	return []int{e, n}
}

// terScore is 100 × edits / reference words (100 for edits against empty
// references, 0 for nothing against nothing).
func terScore(s []int) float64 {
	switch {
	case s[1] > 0:
		return 100 * (float64(s[0]) / float64(s[1]))
	case s[0] > 0:
		return 100
	}
	return 0
}

// terTokens is TER's preprocessing: rstrip, lowercase, split on whitespace.
func terTokens(s string) []string {
	return py.Split(py.Lower(strings.TrimRightFunc(s, py.IsSpace)))
}

// translationEditRate returns the edits turning hyp into ref and ref's
// length: shifts first (each the best found, while one lowers the edit
// distance), then the edit distance of the shifted hypothesis.
func translationEditRate(hyp, ref []string) (edits, refLen int) {
	if len(ref) == 0 {
		return len(hyp), 0
	}
	shifts, checked := 0, 0
	for {
		var delta int
		var next []string
		delta, next, checked = terShift(hyp, ref, checked)
		if checked >= terMaxShiftCandidates || delta <= 0 {
			break
		}
		shifts++
		hyp = next
	}
	d, _ := beamEditDistance(hyp, ref)
	return shifts + d, len(ref)
}

// shiftCandidate orders shifts as Tercom does: larger gain, then longer,
// then earlier in the hypothesis, then earlier target, then the words.
type shiftCandidate struct {
	gain, length, negStart, negIdx int
	words                          []string
}

func (c shiftCandidate) greater(o shiftCandidate) bool {
	for _, d := range [][2]int{{c.gain, o.gain}, {c.length, o.length}, {c.negStart, o.negStart}, {c.negIdx, o.negIdx}} {
		if d[0] != d[1] {
			return d[0] > d[1]
		}
	}
	return slices.Compare(c.words, o.words) > 0
}

// terShift tries every shift of a matching block and returns the best gain
// and the shifted words (gain 0 and hyp when none helps).
func terShift(hyp, ref []string, checked int) (int, []string, int) {
	pre, invTrace := beamEditDistance(hyp, ref)
	align, refErr, hypErr := traceAlignment(flipTrace(invTrace))
	var best *shiftCandidate
	for _, m := range shiftedPairs(hyp, ref) {
		sh, sr, length := m[0], m[1], m[2]
		if sum(hypErr[sh:sh+length]) == 0 || sum(refErr[sr:sr+length]) == 0 {
			continue
		}
		if a, ok := align[sr]; ok && sh <= a && a < sh+length {
			continue
		}
		prev := -1
		for off := -1; off < length; off++ {
			var idx int
			if sr+off == -1 {
				idx = 0
			} else if a, ok := align[sr+off]; ok {
				idx = a + 1
			} else {
				break
			}
			if idx == prev {
				continue
			}
			prev = idx
			shifted := performShift(hyp, sh, length, idx)
			d, _ := beamEditDistance(shifted, ref)
			c := shiftCandidate{pre - d, length, -sh, -idx, shifted}
			checked++
			if best == nil || c.greater(*best) {
				best = &c
			}
		}
		if checked >= terMaxShiftCandidates {
			break
		}
	}
	if best == nil {
		return 0, hyp, checked
	}
	return best.gain, best.words, checked
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// performShift moves words[start:start+length] to target.
func performShift(w []string, start, length, target int) []string {
	cat := func(parts ...[]string) []string {
		out := make([]string, 0, len(w))
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	switch {
	case target < start:
		return cat(w[:target], w[start:start+length], w[target:start], w[start+length:])
	case target > start+length:
		return cat(w[:start], w[start+length:target], w[start:start+length], w[target:])
	}
	return cat(w[:start], w[start+length:length+target], w[start:start+length], w[length+target:])
}

// shiftedPairs lists (hyp start, ref start, length) of matching blocks up to
// terMaxShiftSize words, starts at most terMaxShiftDist apart, in Tercom's
// order.
func shiftedPairs(h, r []string) [][3]int {
	var out [][3]int
	for sh := range h {
		for sr := range r {
			if abs(sr-sh) > terMaxShiftDist {
				continue
			}
			for length := 0; h[sh+length] == r[sr+length] && length < terMaxShiftSize; {
				length++
				out = append(out, [3]int{sh, sr, length})
				if len(h) == sh+length || len(r) == sr+length {
					break
				}
			}
		}
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func flipTrace(t string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case opIns:
			return opDel
		case opDel:
			return opIns
		}
		return r
	}, t)
}

// traceAlignment is trace_to_alignment: reference position → hypothesis
// position, and per-position error flags.
func traceAlignment(trace string) (align map[int]int, refErr, hypErr []int) {
	align = map[int]int{}
	ph, pr := -1, -1
	for _, op := range trace {
		switch op {
		case opNop, opSub:
			ph++
			pr++
			align[pr] = ph
			e := 0
			if op == opSub {
				e = 1
			}
			hypErr, refErr = append(hypErr, e), append(refErr, e)
		case opIns:
			ph++
			hypErr = append(hypErr, 1)
		case opDel:
			pr++
			align[pr] = ph
			refErr = append(refErr, 1)
		}
	}
	return align, refErr, hypErr
}

type edCell struct {
	cost int
	op   byte
}

// beamEditDistance is BeamEditDistance: the word edit distance of hyp to
// ref, computed only within a band around the (length-ratio) diagonal, and
// the trace of operations.
func beamEditDistance(h, ref []string) (int, string) {
	nr := len(ref)
	dist := make([][]edCell, len(h)+1)
	dist[0] = make([]edCell, nr+1)
	for j := range dist[0] {
		dist[0][j] = edCell{j, opIns}
	}
	ratio := 1.0
	if len(h) > 0 {
		ratio = float64(nr) / float64(len(h))
	}
	beam := terBeamWidth
	if float64(terBeamWidth) < ratio/2 {
		beam = int(math.Ceil(ratio/2 + terBeamWidth))
	}
	for i := 1; i <= len(h); i++ {
		row := make([]edCell, nr+1)
		for j := range row {
			row[j] = edCell{terInfinity, 'x'}
		}
		dist[i] = row
		diag := int(math.Floor(float64(i) * ratio))
		lo, hi := max(0, diag-beam), min(nr+1, diag+beam)
		if i == len(h) {
			hi = nr + 1
		}
		for j := lo; j < hi; j++ {
			if j == 0 {
				row[j] = edCell{dist[i-1][j].cost + 1, opDel}
				continue
			}
			sub, op := 1, byte(opSub)
			if h[i-1] == ref[j-1] {
				sub, op = 0, opNop
			}
			for _, c := range []edCell{{dist[i-1][j-1].cost + sub, op}, {dist[i-1][j].cost + 1, opDel}, {row[j-1].cost + 1, opIns}} {
				if row[j].cost > c.cost {
					row[j] = c
				}
			}
		}
	}
	var trace []byte
	for i, j := len(h), nr; i > 0 || j > 0; {
		op := dist[i][j].op
		trace = append(trace, op)
		switch op {
		case opSub, opNop:
			i, j = i-1, j-1
		case opIns:
			j--
		default:
			i--
		}
	}
	slices.Reverse(trace)
	return dist[len(h)][nr].cost, string(trace)
}
