package engine

import "github.com/goeval/goeval/lm"

// Stop reasons reported in lm.GenerateResult.StopReason.
const (
	stopUntil     = "until"
	stopEOS       = "eos"
	stopMaxTokens = "max_tokens"
)

// stopper decides when one request's generation ends and cuts its text as
// lm-eval's HFLM.generate_until does: the generated ids are decoded with special
// tokens skipped, generation stops once any stop string occurs in that
// text (so a stop spanning several tokens is found when its last piece
// arrives), on an EOS id, or after maxGen tokens; the text is then cut at
// the first occurrence of any stop string.
type stopper struct {
	until  []string             // non-empty stop strings
	eos    map[int32]bool       // ids that end generation
	maxGen int                  // max_gen_toks
	decode func([]int32) string // nil without a tokenizer: no text, no stop strings
}

// check returns why generation stops after ids (the generated tokens so
// far, at least one), or "" to go on.
func (s *stopper) check(ids []int32) string {
	if s.eos[ids[len(ids)-1]] {
		return stopEOS
	}
	if len(s.until) > 0 && s.decode != nil && lm.FirstStop(s.decode(ids), s.until) >= 0 {
		return stopUntil
	}
	if len(ids) >= s.maxGen {
		return stopMaxTokens
	}
	return ""
}

// text is the final output: the decoded ids (without the EOS that ended
// them) cut at the first stop string.
func (s *stopper) text(ids []int32, reason string) string {
	if s.decode == nil {
		return ""
	}
	if reason == stopEOS {
		ids = ids[:len(ids)-1]
	}
	t := s.decode(ids)
	if i := lm.FirstStop(t, s.until); i >= 0 {
		t = t[:i]
	}
	return t
}

// cleanUntil drops empty stop strings (Python's str.split("") raises, so
// lm-eval never has them) and duplicates.
func cleanUntil(until []string) []string {
	var out []string
	for _, u := range until {
		if u != "" && !containsString(out, u) {
			out = append(out, u)
		}
	}
	return out
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
