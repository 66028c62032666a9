package serve

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/goeval/goeval/lm"
)

// Streaming: the worker hands each generated token to a tokenStream (never
// blocking); the handler decodes each choice's tokens so far and sends the
// text that can no longer change. Held back: the last len(longest stop)−1
// bytes (a stop string may still complete there, and the final text is cut
// before it) and a trailing incomplete UTF-8 character. When the call ends,
// the rest of the LM's final text follows, so the streamed pieces always
// join to the non-streamed answer.

// sse writes server-sent events; the headers go out with the first event.
type sse struct {
	w       http.ResponseWriter
	started bool
}

func (e *sse) send(v any) error {
	if !e.started {
		h := e.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("Connection", "keep-alive")
		e.w.WriteHeader(http.StatusOK)
		e.started = true
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(e.w, "data: %s\n\n", b); err != nil {
		return err
	}
	return http.NewResponseController(e.w).Flush()
}

func (e *sse) done() error {
	if _, err := fmt.Fprint(e.w, "data: [DONE]\n\n"); err != nil {
		return err
	}
	return http.NewResponseController(e.w).Flush()
}

// fail ends a stream whose headers are out with an error event; before
// that, the error is returned for a normal error response.
func (e *sse) fail(err error) error {
	if !e.started {
		return err
	}
	msg := err.Error()
	_ = e.send(map[string]any{"error": map[string]any{"message": msg, "type": "server_error", "param": nil, "code": nil}})
	return e.done()
}

// tokenStream collects generated ids per request of a job.
type tokenStream struct {
	mu   sync.Mutex
	ids  [][]int32
	wake chan struct{}
}

func newTokenStream(n int) *tokenStream {
	return &tokenStream{ids: make([][]int32, n), wake: make(chan struct{}, 1)}
}

// push is the job's onToken: it runs on the worker and never blocks.
func (t *tokenStream) push(i int, id int32) {
	t.mu.Lock()
	t.ids[i] = append(t.ids[i], id)
	t.mu.Unlock()
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

func (t *tokenStream) get(i int) []int32 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]int32(nil), t.ids[i]...)
}

// streamGenerate generates n choices per prompt, calling emit(choice,
// text) with each new piece of a choice's text, and returns the results.
func (s *Server) streamGenerate(r *http.Request, samp sampling, cs []*completion, emit func(int, string) error) ([]lm.GenerateResult, error) {
	j := &job{}
	for _, c := range cs {
		j.gen = append(j.gen, genRequests(c.prompt, samp)...)
	}
	ts := newTokenStream(len(j.gen))
	j.onToken = ts.push
	if err := s.submit(r, j); err != nil {
		return nil, err
	}
	hold := 0
	for _, u := range samp.Stop {
		hold = max(hold, len(u)-1)
	}
	sent := make([]string, len(j.gen))
	send := func(i int, text string) error {
		if len(text) <= len(sent[i]) || !strings.HasPrefix(text, sent[i]) {
			return nil
		}
		if err := emit(i, text[len(sent[i]):]); err != nil {
			return err
		}
		sent[i] = text
		return nil
	}
	for {
		select {
		case <-ts.wake:
			for i := range sent {
				text := s.m.Tok.Decode(ts.get(i), true)
				if cut := lm.FirstStop(text, samp.Stop); cut >= 0 {
					text = text[:cut] // the token completing a stop string arrives before the stop
				}
				if err := send(i, settled(text, hold)); err != nil {
					return nil, err
				}
			}
		case <-r.Context().Done():
			return nil, r.Context().Err()
		case res := <-j.done:
			if res.err != nil {
				return nil, &apiError{Status: 500, Type: "server_error", Message: "model: " + res.err.Error()}
			}
			for i, g := range res.gen {
				if err := send(i, g.Text); err != nil {
					return nil, err
				}
			}
			return res.gen, nil
		}
	}
}

// settled is the part of text that later tokens cannot change: without
// its last hold bytes and a trailing incomplete character.
func settled(text string, hold int) string {
	cut := len(text) - hold
	if cut <= 0 {
		return ""
	}
	for cut > 0 && cut < len(text) && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return strings.TrimRight(text[:cut], "\uFFFD")
}

// randomSeed seeds a sampled request that names no seed.
func randomSeed() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}
