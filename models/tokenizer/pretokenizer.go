package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// piece is one split of the input on its way to the model.
type piece struct {
	s     string
	id    int32 // an added token's id, or -1
	bl    bool  // s holds raw bytes still to be mapped to byte-level characters
	first bool  // the split starts at offset 0 of the original text
}

// preTokenizer splits pieces further; it appends to out.
type preTokenizer interface {
	pre(p piece, out []piece) []piece
}

// text returns the piece's string as the next stage sees it.
func (p piece) text() string {
	if p.bl {
		return rawToByteLevel(p.s)
	}
	return p.s
}

type preSeq []preTokenizer

func (q preSeq) pre(p piece, out []piece) []piece {
	cur := []piece{p}
	for _, t := range q {
		var next []piece
		for _, c := range cur {
			next = t.pre(c, next)
		}
		cur = next
	}
	return append(out, cur...)
}

// behavior is a SplitDelimiterBehavior.
type behavior int

const (
	removed behavior = iota
	isolated
	mergedWithPrevious
	mergedWithNext
	contiguous
)

func parseBehavior(s string) (behavior, error) {
	switch s {
	case "Removed":
		return removed, nil
	case "Isolated", "":
		return isolated, nil
	case "MergedWithPrevious":
		return mergedWithPrevious, nil
	case "MergedWithNext":
		return mergedWithNext, nil
	case "Contiguous":
		return contiguous, nil
	}
	return 0, fmt.Errorf("unknown split behavior %q", s)
}

// splitPieces cuts p at the given matches (byte offsets into p.s) with the
// behavior of Rust's NormalizedString::split, dropping empty pieces.
func splitPieces(p piece, matches [][2]int, b behavior, invert bool, out []piece) []piece {
	type seg struct {
		start, end int
		match      bool
	}
	s := p.s
	segs := make([]seg, 0, 2*len(matches)+1)
	prev := 0
	for _, m := range matches {
		if prev != m[0] {
			segs = append(segs, seg{prev, m[0], invert})
		}
		segs = append(segs, seg{m[0], m[1], !invert})
		prev = m[1]
	}
	if prev != len(s) {
		segs = append(segs, seg{prev, len(s), invert})
	}
	var keep []seg
	switch b {
	case removed:
		for _, g := range segs {
			if !g.match {
				keep = append(keep, g)
			}
		}
	case isolated:
		keep = segs
	case mergedWithPrevious, contiguous:
		prevMatch := false
		for _, g := range segs {
			join := g.match && !prevMatch
			if b == contiguous {
				join = g.match == prevMatch
			}
			if join && len(keep) > 0 {
				keep[len(keep)-1].end = g.end
			} else {
				keep = append(keep, g)
			}
			prevMatch = g.match
		}
	case mergedWithNext:
		prevMatch := false
		for i := len(segs) - 1; i >= 0; i-- {
			g := segs[i]
			if g.match && !prevMatch && len(keep) > 0 {
				keep[len(keep)-1].start = g.start
			} else {
				keep = append(keep, g)
			}
			prevMatch = g.match
		}
		for i, j := 0, len(keep)-1; i < j; i, j = i+1, j-1 {
			keep[i], keep[j] = keep[j], keep[i]
		}
	}
	for _, g := range keep {
		if g.end > g.start {
			out = append(out, piece{s: s[g.start:g.end], id: -1, bl: p.bl, first: p.first && g.start == 0})
		}
	}
	return out
}

// materialize maps a pending byte-level piece to characters, so that a
// pre-tokenizer that runs after ByteLevel sees what Rust's does.
func materialize(p piece) piece {
	if p.bl {
		p.s, p.bl = rawToByteLevel(p.s), false
	}
	return p
}

// splitPre is the Split pre-tokenizer (and the regex part of others).
type splitPre struct {
	pat    *pattern
	beh    behavior
	invert bool
}

func (t splitPre) pre(p piece, out []piece) []piece {
	p = materialize(p)
	return splitPieces(p, t.pat.findAll(p.s, nil), t.beh, t.invert, out)
}

// funcPre splits on every character for which f is true.
type funcPre struct {
	f   func(rune) bool
	beh behavior
}

func (t funcPre) pre(p piece, out []piece) []piece {
	p = materialize(p)
	var ms [][2]int
	for i, r := range p.s {
		if t.f(r) {
			ms = append(ms, [2]int{i, i + utf8.RuneLen(r)})
		}
	}
	return splitPieces(p, ms, t.beh, false, out)
}

// byteLevelPre is the ByteLevel pre-tokenizer. The byte-to-character
// mapping is deferred (piece.bl) so the BPE can work on raw bytes.
type byteLevelPre struct {
	addPrefixSpace bool
	re             *pattern // GPT-2 regex when use_regex
}

func (t byteLevelPre) pre(p piece, out []piece) []piece {
	p = materialize(p)
	if t.addPrefixSpace && !strings.HasPrefix(p.s, " ") {
		p.s = " " + p.s
	}
	p.bl = true
	if t.re == nil {
		return append(out, p)
	}
	return splitPieces(p, t.re.findAll(p.s, nil), isolated, false, out)
}

// metaspacePre is the Metaspace pre-tokenizer.
type metaspacePre struct {
	repl          string
	prependScheme string // always, first, never
	split         bool
}

func (t metaspacePre) pre(p piece, out []piece) []piece {
	p = materialize(p)
	p.s = strings.ReplaceAll(p.s, " ", t.repl)
	if !strings.HasPrefix(p.s, t.repl) && (t.prependScheme == "always" || (t.prependScheme == "first" && p.first)) {
		p.s = t.repl + p.s
	}
	if !t.split {
		return append(out, p)
	}
	return splitPieces(p, (&pattern{lit: t.repl}).findAll(p.s, nil), mergedWithNext, false, out)
}

func isPunct(r rune) bool {
	return (r < 128 && unicode.IsPunct(r)) || (r < 128 && strings.ContainsRune("$+<=>^`|~", r)) || unicode.In(r, unicode.P)
}

// preJSON gathers the fields of every pre-tokenizer type.
type preJSON struct {
	Type             string            `json:"type"`
	Pretokenizers    []json.RawMessage `json:"pretokenizers"`
	Pattern          patternJSON       `json:"pattern"`
	Behavior         string            `json:"behavior"`
	Invert           bool              `json:"invert"`
	AddPrefixSpace   *bool             `json:"add_prefix_space"`
	UseRegex         *bool             `json:"use_regex"`
	Replacement      string            `json:"replacement"`
	PrependScheme    string            `json:"prepend_scheme"`
	Split            *bool             `json:"split"`
	IndividualDigits bool              `json:"individual_digits"`
	Delimiter        string            `json:"delimiter"`
}
