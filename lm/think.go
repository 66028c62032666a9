package lm

import (
	"slices"
	"strings"

	"github.com/goeval/goeval/internal/py"
)

// Thinking is lm-eval's handling of a reasoning model's generations
// (HFLM's think_end_token and enable_thinking model arguments, 0.4.13):
// the text up to the last think-end token is the reasoning, dropped
// before filters and metrics; the rest, left-stripped, is the answer.
type Thinking struct {
	// EndToken is think_end_token's text ("</think>"); "" disables the
	// split.
	EndToken string
	// EndTokenID is the think-end token's id when HasID (a single token of
	// the model's vocabulary): the reasoning and answer tokens of a
	// generation are counted with it.
	EndTokenID int32
	HasID      bool
	// ByID is think_end_token given as a token id (HFLM's int form, which
	// cuts token ids, not text): a generation that comes with its ids is
	// cut after the last EndTokenID among them and the ids after it are
	// decoded with Decode (the LM's decoding of its generations, special
	// tokens skipped), left-stripped and cut at the first stop string
	// (the request's, and Stops) — SplitIDs. Without ids (an API model)
	// the text is split at EndToken's text (Split).
	ByID   bool
	Decode func(ids []int32) string
	// Stops are stop strings the LM adds to every request's (HFLM: the
	// EOS token's text).
	Stops []string
	// Enabled is enable_thinking=True: lm-eval then refuses loglikelihood
	// requests.
	Enabled bool
}

// On reports whether generations are split.
func (t Thinking) On() bool { return t.EndToken != "" }

// Split cuts a generation as lm-eval's postprocess_generated_text does
// with think_end_token: answer is the text after the last occurrence of
// EndToken, left-stripped (Python's str.lstrip, applied even when the
// token does not occur); reasoning is everything before it, so that
// reasoning + answer == text. found reports whether the token occurs.
func (t Thinking) Split(text string) (reasoning, answer string, found bool) {
	if t.EndToken == "" {
		return "", text, false
	}
	rest := text
	i := strings.LastIndex(text, t.EndToken)
	if i >= 0 {
		rest = text[i+len(t.EndToken):]
	}
	answer = strings.TrimLeftFunc(rest, py.IsSpace)
	return text[:len(text)-len(answer)], answer, i >= 0
}

// Count counts a generation's tokens (GenerateResult.IDs) on either side
// of the last think-end token: reasoning includes the token itself. ok is
// false when the token's id is unknown (HasID false) or the LM returned no
// ids (an API chat model).
func (t Thinking) Count(ids []int32) (reasoning, answer int, ok bool) {
	if !t.HasID || len(ids) == 0 {
		return 0, 0, false
	}
	for i := len(ids) - 1; i >= 0; i-- {
		if ids[i] == t.EndTokenID {
			return i + 1, len(ids) - i - 1, true
		}
	}
	return 0, len(ids), true
}

// SplitIDs cuts a generation's ids as HFLM.generate_until does with an
// integer think_end_token: answer is the ids after the last EndTokenID (all
// of them when it does not occur) decoded, left-stripped and cut at the
// first of until and Stops; reasoning is the ids up to and with the token,
// decoded (empty when it does not occur). found reports whether it occurs.
func (t Thinking) SplitIDs(ids []int32, until []string) (reasoning, answer string, found bool) {
	i := len(ids) - 1
	for ; i >= 0 && ids[i] != t.EndTokenID; i-- {
	}
	if i >= 0 {
		reasoning = t.Decode(ids[:i+1])
	}
	answer = strings.TrimLeftFunc(t.Decode(ids[i+1:]), py.IsSpace)
	if k := FirstStop(answer, append(slices.Clone(until), t.Stops...)); k >= 0 {
		answer = answer[:k]
	}
	return reasoning, answer, i >= 0
}
