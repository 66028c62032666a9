package tasks

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/goeval/goeval/internal/py"
)

// sampler draws few-shot docs as lm-eval's ContextSampler / FirstNSampler.
type sampler struct {
	pool     []Doc
	rnd      *py.Rand
	firstN   bool
	withEval bool // fewshot split == test split: the eval doc is passed (k+1 draws)
}

// newSampler builds the few-shot pool (fewshot_split, else fixed samples,
// else train, validation, test) when k > 0.
func (s *spec) newSampler(opts Options, k int) (*sampler, error) {
	fs := &sampler{rnd: py.NewRand(opts.Seed), firstN: s.firstN, withEval: s.fewshotSplit == s.testSplit}
	if k == 0 {
		return fs, nil
	}
	var split string
	switch {
	case s.fewshotSplit != "":
		split = s.fewshotSplit
	case s.samples != nil:
		fs.pool = s.samples
		return fs, nil
	case s.samplesFn != nil:
		var err error
		fs.pool, err = s.samplesFn()
		return fs, err
	case s.trainSplit != "":
		split = s.trainSplit
	case s.valSplit != "":
		split = s.valSplit
	default:
		split = s.testSplit
	}
	t, err := s.docs(opts.dataLoc(), split)
	if err != nil {
		return nil, err
	}
	fs.pool = t.Rows
	if len(s.pyDoc) > 0 && len(t.Rows) <= maxPrefetch {
		if err := s.prefetchDocs(t.Rows); err != nil {
			return nil, err
		}
	}
	return fs, nil
}

// sample returns k few-shot docs for evalDoc.
func (fs *sampler) sample(k int, evalDoc Doc) ([]Doc, error) {
	if k == 0 {
		return nil, nil
	}
	if fs.firstN {
		pool := fs.pool
		if fs.withEval {
			pool = without(pool, evalDoc)
		}
		if k > len(pool) {
			return nil, fmt.Errorf("%d few-shot examples requested but only %d available", k, len(pool))
		}
		return pool[:k], nil
	}
	draw := k
	if fs.withEval {
		draw = k + 1
	}
	if draw > len(fs.pool) {
		return nil, fmt.Errorf("%d few-shot examples requested (+1 when the eval doc may be drawn) but the pool holds %d", k, len(fs.pool))
	}
	res := pick(fs.pool, fs.rnd.SampleIndex(len(fs.pool), draw))
	if fs.withEval {
		res = without(res, evalDoc)
		if len(res) > k {
			res = res[:k]
		}
		if len(res) < k { // duplicates of the eval doc were drawn: resample
			pool := without(fs.pool, evalDoc)
			if k > len(pool) {
				return nil, fmt.Errorf("%d few-shot examples requested but only %d differ from the eval doc", k, len(pool))
			}
			res = pick(pool, fs.rnd.SampleIndex(len(pool), k))
		}
	}
	return res, nil
}

func pick(pool []Doc, idx []int) []Doc {
	out := make([]Doc, len(idx))
	for i, j := range idx {
		out[i] = pool[j]
	}
	return out
}

// without drops the docs equal to d (Python dict equality).
func without(pool []Doc, d Doc) []Doc {
	out := make([]Doc, 0, len(pool))
	for _, x := range pool {
		if d == nil || !reflect.DeepEqual(x, d) {
			out = append(out, x)
		}
	}
	return out
}

// message is lm-eval's Message: role, content and the plain-text delimiter.
type message struct{ role, content, delim string }

func lastRune(s string) rune  { r := []rune(s); return r[len(r)-1] }
func firstRune(s string) rune { return []rune(s)[0] }

// maybeDelimit is lm-eval's maybe_delimit.
func maybeDelimit(a, b, delim string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	if py.IsSpace(lastRune(a)) || py.IsSpace(firstRune(b)) {
		return a + b
	}
	return a + delim + b
}

// answerText is build_qa_turn's answer: c[a] for an int with choices, a[0]
// for a list, else a string.
func answerText(a any, c []string) (string, bool, error) {
	switch x := a.(type) {
	case nil:
		return "", false, nil
	case string:
		return x, x != "", nil
	case bool: // a Python int
		return answerText(map[bool]int{false: 0, true: 1}[x], c)
	case int:
		if c == nil {
			return "", false, fmt.Errorf("target index %d without choices", x)
		}
		if x < 0 || x >= len(c) {
			return "", false, fmt.Errorf("target index %d out of range for %d choices", x, len(c))
		}
		return c[x], true, nil
	case []string:
		if len(x) == 0 {
			return "", false, fmt.Errorf("empty target list")
		}
		return x[0], true, nil
	case []any:
		if len(x) == 0 {
			return "", false, fmt.Errorf("empty target list")
		}
		s, ok := x[0].(string)
		if !ok {
			return "", false, fmt.Errorf("few-shot answer %v is not a string", x[0])
		}
		return s, true, nil
	}
	return "", false, fmt.Errorf("unsupported target %T", a)
}

// qaTurn is build_qa_turn: the question as a user turn and, when there is
// an answer, the answer (after gen_prefix, if any) as an assistant turn;
// with no answer, gen_prefix alone starts the assistant turn.
func qaTurn(q string, c []string, a any, genPrefix, tgtDelim, fewDelim string) ([]message, error) {
	ans, has, err := answerText(a, c)
	if err != nil {
		return nil, err
	}
	userDelim := ""
	if (has && genPrefix == "") || (genPrefix != "" && requiresDelimiter(q, genPrefix)) {
		userDelim = tgtDelim
	}
	msgs := []message{{"user", q, userDelim}}
	switch {
	case has:
		msgs = append(msgs, message{"assistant", maybeDelimit(genPrefix, ans, " "), fewDelim})
	case genPrefix != "":
		msgs = append(msgs, message{"assistant", genPrefix, ""})
	}
	return msgs, nil
}

// requiresDelimiter is lm-eval's requires_delimiter: neither side has
// whitespace at the join.
func requiresDelimiter(prefix, suffix string) bool {
	if prefix == "" {
		return false
	}
	return !py.IsSpace(lastRune(prefix)) && !py.IsSpace(firstRune(suffix))
}

// render joins messages as plain text or through the chat template; a
// conversation ending with an assistant turn (a gen_prefix) is continued,
// not closed (lm-eval: add_generation_prompt=not gen_prefix).
func render(opts Options, msgs []message) (string, error) {
	if !opts.ApplyChatTemplate {
		var b strings.Builder
		for _, m := range msgs {
			b.WriteString(m.content + m.delim)
		}
		return b.String(), nil
	}
	var chat []ChatMessage
	if opts.FewshotAsMultiturn {
		for _, m := range msgs {
			chat = append(chat, ChatMessage{Role: m.role, Content: m.content})
		}
	} else {
		chat = singleTurn(msgs)
	}
	gen := len(msgs) == 0 || msgs[len(msgs)-1].role != "assistant"
	out, err := opts.ChatTemplate.ApplyChatTemplate(chat, gen)
	if err != nil && len(chat) > 0 && chat[0].Role == "system" {
		out, err = opts.ChatTemplate.ApplyChatTemplate(chat[1:], gen) // HFLM retries without the system turn
	}
	if err != nil {
		return "", fmt.Errorf("chat template: %w", err)
	}
	return out, nil
}

// singleTurn is lm-eval's multiturn_to_singleturn.
func singleTurn(msgs []message) []ChatMessage {
	var sys *message
	if len(msgs) > 0 && msgs[0].role == "system" {
		sys, msgs = &msgs[0], msgs[1:]
	}
	var out []ChatMessage
	if sys != nil {
		out = append(out, ChatMessage{Role: "system", Content: sys.content})
	}
	body := msgs
	var tail *message
	if len(msgs) > 0 && msgs[len(msgs)-1].role == "assistant" {
		body, tail = msgs[:len(msgs)-1], &msgs[len(msgs)-1]
	}
	var b strings.Builder
	for i, m := range body {
		b.WriteString(m.content)
		if i < len(body)-1 {
			b.WriteString(m.delim)
		}
	}
	out = append(out, ChatMessage{Role: "user", Content: b.String()})
	if tail != nil {
		out = append(out, ChatMessage{Role: "assistant", Content: tail.content})
	}
	return out
}
