package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// addedVocab holds the added tokens of tokenizer.json and splits text on
// them like Rust's AddedVocabulary (leftmost-longest matching).
type addedVocab struct {
	tokens    []addedTokenJSON
	byContent map[string]int32
	byID      map[int32]string
	special   map[string]bool
	raw       *trie // tokens with normalized=false, matched on the input
	norm      *trie // tokens with normalized=true, matched after normalization
}

func newAddedVocab(toks []addedTokenJSON, n normalizer) *addedVocab {
	a := &addedVocab{tokens: toks, byContent: map[string]int32{}, byID: map[int32]string{}, special: map[string]bool{}, raw: newTrie(), norm: newTrie()}
	for i, t := range toks {
		a.byContent[t.Content] = t.ID
		a.byID[t.ID] = t.Content
		if t.Special {
			a.special[t.Content] = true
		}
		if t.Content == "" {
			continue
		}
		if t.Normalized {
			c := t.Content
			if n != nil {
				c = n.normalize(c)
			}
			a.norm.add(c, i)
		} else {
			a.raw.add(t.Content, i)
		}
	}
	return a
}

// split cuts p on the tokens of tr; matched tokens become pieces with ids.
func (a *addedVocab) split(p piece, tr *trie, out []piece) []piece {
	s := p.s
	if len(tr.nodes) == 1 || s == "" {
		return append(out, p)
	}
	startOff := 0
	emit := func(from, to int, id int32) {
		if to > from {
			out = append(out, piece{s: s[from:to], id: id, first: p.first && from == 0})
		}
	}
	for i := 0; i < len(s); {
		if !tr.first[s[i]] {
			i++
			continue
		}
		end, ti := tr.longest(s, i)
		if ti < 0 {
			i++
			continue
		}
		start, stop, ok := a.adjust(s, i, end, startOff, a.tokens[ti])
		i = end
		if !ok {
			continue
		}
		emit(startOff, start, -1)
		out = append(out, piece{s: s[start:stop], id: a.tokens[ti].ID, first: p.first && start == 0})
		startOff = stop
		if stop > i {
			i = stop
		}
	}
	emit(startOff, len(s), -1)
	return out
}

// adjust applies single_word, lstrip and rstrip to a match [start, stop).
func (a *addedVocab) adjust(s string, start, stop, startOff int, t addedTokenJSON) (int, int, bool) {
	if t.SingleWord {
		r, _ := utf8.DecodeLastRuneInString(s[:start])
		startSpace := start == 0 || !isAlnum(r)
		r, _ = utf8.DecodeRuneInString(s[stop:])
		stopSpace := stop == len(s) || !isAlnum(r)
		if !startSpace || !stopSpace {
			return 0, 0, false
		}
	}
	if t.LStrip {
		ns := start
		for ns > 0 {
			r, n := utf8.DecodeLastRuneInString(s[:ns])
			if !unicode.IsSpace(r) {
				break
			}
			ns -= n
		}
		start = max(ns, startOff)
	}
	if t.RStrip {
		for stop < len(s) {
			r, n := utf8.DecodeRuneInString(s[stop:])
			if !unicode.IsSpace(r) {
				break
			}
			stop += n
		}
	}
	return start, stop, true
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }

// trie is a byte trie over added-token contents.
type trie struct {
	nodes []trieNode
	first [256]bool
}

type trieNode struct {
	next map[byte]int32
	tok  int32 // index into addedVocab.tokens, or -1
}

func newTrie() *trie { return &trie{nodes: []trieNode{{tok: -1}}} }

func (t *trie) add(s string, tok int) {
	t.first[s[0]] = true
	n := int32(0)
	for i := 0; i < len(s); i++ {
		nx, ok := t.nodes[n].next[s[i]]
		if !ok {
			if t.nodes[n].next == nil {
				t.nodes[n].next = map[byte]int32{}
			}
			nx = int32(len(t.nodes))
			t.nodes = append(t.nodes, trieNode{tok: -1})
			t.nodes[n].next[s[i]] = nx
		}
		n = nx
	}
	if t.nodes[n].tok < 0 {
		t.nodes[n].tok = int32(tok)
	}
}

// longest returns the end and token of the longest match starting at i.
func (t *trie) longest(s string, i int) (int, int) {
	end, tok := -1, -1
	n := int32(0)
	for j := i; j < len(s); j++ {
		nx, ok := t.nodes[n].next[s[j]]
		if !ok {
			break
		}
		n = nx
		if t.nodes[n].tok >= 0 {
			end, tok = j+1, int(t.nodes[n].tok)
		}
	}
	return end, tok
}
