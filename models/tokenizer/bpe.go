package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
)

// bpe is the BPE model of tokenizer.json.
type bpe struct {
	vocab      map[string]int32
	idToToken  []string
	merges     map[uint64]merge // key: pairKey(left, right)
	unkID      int32            // -1 without unk_token
	fuseUnk    bool
	byteFall   bool
	ignoreMrg  bool
	prefix     string // continuing_subword_prefix
	suffix     string // end_of_word_suffix
	byteTokens [256]int32
	cache      *wordCache // words tokenized character by character
	blCache    *wordCache // byte-level words, keyed by raw bytes

	// For byte-level words: vocab ids of the 256 mapped byte characters and
	// the vocabulary keyed by raw bytes (for ignore_merges).
	byteLevelIDs [256]int32
	rawVocab     map[string]int32
}

type merge struct{ rank, newID int32 }

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

type bpeJSON struct {
	Type                    string           `json:"type"`
	Dropout                 *float64         `json:"dropout"`
	UnkToken                *string          `json:"unk_token"`
	ContinuingSubwordPrefix *string          `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string          `json:"end_of_word_suffix"`
	FuseUnk                 bool             `json:"fuse_unk"`
	ByteFallback            bool             `json:"byte_fallback"`
	IgnoreMerges            bool             `json:"ignore_merges"`
	Vocab                   map[string]int32 `json:"vocab"`
	Merges                  json.RawMessage  `json:"merges"`
}

// parseModel builds the model; only BPE is supported.
func parseModel(raw json.RawMessage) (*bpe, error) {
	var m bpeJSON
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if m.Type == "" && m.Merges != nil {
		m.Type = "BPE"
	}
	if m.Type != "BPE" {
		return nil, fmt.Errorf("unsupported model type %q (supported: BPE)", m.Type)
	}
	if m.Dropout != nil && *m.Dropout > 0 && *m.Dropout < 1 {
		return nil, fmt.Errorf("BPE dropout %v is not supported (encoding would not be deterministic)", *m.Dropout)
	}
	b := &bpe{vocab: m.Vocab, unkID: -1, fuseUnk: m.FuseUnk, byteFall: m.ByteFallback, ignoreMrg: m.IgnoreMerges, cache: newWordCache(), blCache: newWordCache()}
	if b.vocab == nil {
		b.vocab = map[string]int32{}
	}
	if m.ContinuingSubwordPrefix != nil {
		b.prefix = *m.ContinuingSubwordPrefix
	}
	if m.EndOfWordSuffix != nil {
		b.suffix = *m.EndOfWordSuffix
	}
	maxID := int32(-1)
	for tok, id := range b.vocab {
		if id < 0 {
			return nil, fmt.Errorf("vocab: negative id %d for %q", id, tok)
		}
		maxID = max(maxID, id)
	}
	// idToToken is indexed by id: a huge id in a small vocab would
	// allocate far beyond the file (and 2^31-1 overflows maxID+1).
	if int64(maxID) >= 2*int64(len(b.vocab))+1<<16 {
		return nil, fmt.Errorf("vocab: id %d is far beyond its %d entries; ids must be nearly contiguous", maxID, len(b.vocab))
	}
	b.idToToken = make([]string, maxID+1)
	for tok, id := range b.vocab {
		b.idToToken[id] = tok
	}
	if m.UnkToken != nil {
		id, ok := b.vocab[*m.UnkToken]
		if !ok {
			return nil, fmt.Errorf("unk_token %q is not in the vocab", *m.UnkToken)
		}
		b.unkID = id
	}
	pairs, err := parseMerges(m.Merges)
	if err != nil {
		return nil, err
	}
	if err := b.buildMerges(pairs); err != nil {
		return nil, err
	}
	b.buildByteTables()
	return b, nil
}

// parseMerges accepts both ["a b", ...] and [["a","b"], ...].
func parseMerges(raw json.RawMessage) ([][2]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var strs []string
	if err := json.Unmarshal(raw, &strs); err == nil {
		out := make([][2]string, len(strs))
		for i, s := range strs {
			a, b, ok := strings.Cut(s, " ")
			if !ok {
				return nil, fmt.Errorf("merges[%d] %q: want two tokens separated by a space", i, s)
			}
			out[i] = [2]string{a, b}
		}
		return out, nil
	}
	var lists [][]string
	if err := json.Unmarshal(raw, &lists); err != nil {
		return nil, fmt.Errorf("merges: want a list of \"a b\" strings or [a, b] pairs: %w", err)
	}
	out := make([][2]string, len(lists))
	for i, l := range lists {
		if len(l) != 2 {
			return nil, fmt.Errorf("merges[%d]: want 2 tokens, got %d", i, len(l))
		}
		out[i] = [2]string{l[0], l[1]}
	}
	return out, nil
}

func (b *bpe) buildMerges(pairs [][2]string) error {
	b.merges = make(map[uint64]merge, len(pairs))
	for i, p := range pairs {
		a, ok1 := b.vocab[p[0]]
		c, ok2 := b.vocab[p[1]]
		if !ok1 || !ok2 {
			return fmt.Errorf("merges[%d] %q names a token that is not in the vocab", i, p[0]+" "+p[1])
		}
		merged := p[0] + p[1][min(len(b.prefix), len(p[1])):]
		id, ok := b.vocab[merged]
		if !ok {
			return fmt.Errorf("merges[%d]: merged token %q is not in the vocab", i, merged)
		}
		b.merges[pairKey(a, c)] = merge{rank: int32(i), newID: id}
	}
	return nil
}

// buildByteTables fills byteTokens (<0xHH> ids for byte_fallback),
// byteLevelIDs and rawVocab (for byte-level words).
func (b *bpe) buildByteTables() {
	for i := range 256 {
		b.byteTokens[i] = -1
		if id, ok := b.vocab[fmt.Sprintf("<0x%02X>", i)]; ok {
			b.byteTokens[i] = id
		}
		b.byteLevelIDs[i] = -1
		if id, ok := b.vocab[byteToChar[i]]; ok {
			b.byteLevelIDs[i] = id
		}
	}
	if !b.ignoreMrg {
		return
	}
	b.rawVocab = make(map[string]int32, len(b.vocab))
	for tok, id := range b.vocab {
		if raw, ok := byteLevelToRaw(tok); ok {
			b.rawVocab[raw] = id
		}
	}
}

// tokenToID and idToTok look up the model vocabulary.
func (b *bpe) tokenToID(s string) (int32, bool) { id, ok := b.vocab[s]; return id, ok }

func (b *bpe) idToTok(id int32) (string, bool) {
	if id < 0 || int(id) >= len(b.idToToken) {
		return "", false
	}
	s := b.idToToken[id]
	if s == "" {
		if got, ok := b.vocab[""]; !ok || got != id {
			return "", false
		}
	}
	return s, true
}
