// Package serve is an OpenAI-compatible HTTP server over an lm.LM:
// /v1/models, /v1/completions (with echo and logprobs, so log-likelihood
// clients such as lm-eval's local-completions work) and
// /v1/chat/completions (the model's chat template), with streaming.
// Requests from concurrent clients are batched into shared LM calls
// (scheduler.go); a bounded queue answers 503 when full. It knows the
// lm contract and a tokenizer, not GoMLX: `goeval serve` opens the engine
// and hands it here.
package serve

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/goeval/goeval/lm"
)

// Tokenizer is what the server needs of a tokenizer (tokenizer.Tokenizer).
type Tokenizer interface {
	Encode(text string, addSpecial bool) []int32
	Decode(ids []int32, skipSpecial bool) string
	VocabSize() int
}

// Model is what the server serves.
type Model struct {
	Name      string           // the model id clients name (/v1/models)
	LM        lm.LM            // generation
	Scorer    lm.TokenScorer   // echo and logprobs; nil refuses them
	Chat      lm.ChatTemplater // nil refuses /v1/chat/completions
	Tok       Tokenizer
	EOS       []int32 // ids that end generation (a greedy next token answered by scoring)
	MaxLength int     // prompt + generated tokens, at most
	Vocab     int     // the model's vocabulary size, when smaller than the tokenizer's (0: the tokenizer's)
}

// Options tune the server; zero values take the defaults.
type Options struct {
	MaxQueue    int           // requests waiting before 503 (default 256)
	MaxBatch    int           // requests per LM call (default 64)
	BatchWindow time.Duration // how long the first request of a batch waits for others (default 5 ms; < 0: none)
	MaxBody     int64         // request body bytes (default 8 MiB)
	Logf        func(format string, args ...any)
}

func (o Options) withDefaults() Options {
	if o.MaxQueue <= 0 {
		o.MaxQueue = 256
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = 64
	}
	if o.BatchWindow == 0 {
		o.BatchWindow = 5 * time.Millisecond
	}
	if o.MaxBody <= 0 {
		o.MaxBody = 8 << 20
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	return o
}

// Server answers the OpenAI endpoints. Close it to stop its worker.
type Server struct {
	m     Model
	o     Options
	sched *scheduler
	start int64
}

// New starts a server's worker; m.LM and m.Tok are required.
func New(m Model, o Options) (*Server, error) {
	if m.LM == nil || m.Tok == nil || m.Name == "" {
		return nil, errors.New("serve: Model needs LM, Tok and Name")
	}
	o = o.withDefaults()
	return &Server{m: m, o: o, sched: newScheduler(m.LM, m.Scorer, o), start: time.Now().Unix()}, nil
}

// Handler routes the endpoints.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", s.models)
	mux.HandleFunc("GET /v1/models/{id...}", s.models)
	mux.HandleFunc("POST /v1/completions", s.post(s.completions))
	mux.HandleFunc("POST /v1/chat/completions", s.post(s.chat))
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &apiError{Status: 404, Type: "not_found_error", Message: fmt.Sprintf("no route %s %s: goeval serve answers GET /v1/models, POST /v1/completions and POST /v1/chat/completions", r.Method, r.URL.Path)})
	})
	return mux
}

// Close refuses new requests, answers the queued ones and stops the
// worker. Call it after http.Server.Shutdown has drained the handlers.
func (s *Server) Close() { s.sched.close() }

// vocab is the number of token ids a prompt may use: a request with an id
// the model lacks would fail the whole batch it shares with others.
func (s *Server) vocab() int {
	if v := s.m.Tok.VocabSize(); s.m.Vocab <= 0 || v < s.m.Vocab {
		return v
	}
	return s.m.Vocab
}

// Stats reports the batching counters.
func (s *Server) Stats() Stats { return s.sched.snapshot() }

type modelCard struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
	MaxLen  int    `json:"max_model_len,omitempty"`
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	card := modelCard{ID: s.m.Name, Object: "model", Created: s.start, OwnedBy: "goeval", MaxLen: s.m.MaxLength}
	if id := r.PathValue("id"); id != "" {
		if id != s.m.Name {
			writeError(w, &apiError{Status: 404, Type: "not_found_error", Param: "model", Message: fmt.Sprintf("model %q is not served here; this server serves %q", id, s.m.Name)})
			return
		}
		writeJSON(w, card)
		return
	}
	writeJSON(w, map[string]any{"object": "list", "data": []modelCard{card}})
}

// post reads a JSON body, checks the model name, and runs handle; errors
// become OpenAI error objects.
func (s *Server) post(handle func(http.ResponseWriter, *http.Request, fields) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.o.MaxBody))
		if err != nil {
			writeError(w, &apiError{Status: 413, Type: "invalid_request_error", Message: fmt.Sprintf("request body: %v (limit %d bytes)", err, s.o.MaxBody)})
			return
		}
		f, err := decodeBody(body)
		if err == nil {
			err = s.checkModel(f)
		}
		if err == nil {
			err = handle(w, r, f)
		}
		if err != nil {
			writeError(w, err)
		}
	}
}

// checkModel takes "model": required, and the served name.
func (s *Server) checkModel(f fields) error {
	var name string
	if err := f.take("model", &name); err != nil {
		return err
	}
	switch {
	case name == "":
		return badRequest("model", "model is required (this server serves %q)", s.m.Name)
	case name != s.m.Name:
		return &apiError{Status: 404, Type: "not_found_error", Param: "model", Message: fmt.Sprintf("model %q is not served here; this server serves %q", name, s.m.Name)}
	}
	return nil
}

// submit queues j for r (503 when the queue is full or closing).
func (s *Server) submit(r *http.Request, j *job) error {
	j.ctx, j.done = r.Context(), make(chan jobResult, 1)
	if err := s.sched.submit(j); err != nil {
		return &apiError{Status: 503, Type: "server_overloaded", Message: err.Error()}
	}
	return nil
}

// runJob submits j and waits for its result (or the client leaving).
func (s *Server) runJob(r *http.Request, j *job) (jobResult, error) {
	if err := s.submit(r, j); err != nil {
		return jobResult{}, err
	}
	return wait(r, j)
}

// wait returns j's result, or the client's cancellation.
func wait(r *http.Request, j *job) (jobResult, error) {
	select {
	case res := <-j.done:
		if res.err != nil {
			return res, &apiError{Status: 500, Type: "server_error", Message: "model: " + res.err.Error()}
		}
		return res, nil
	case <-r.Context().Done():
		return jobResult{}, r.Context().Err()
	}
}

// writeJSON writes v with status 200.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// writeError writes err as OpenAI's {"error": {...}} with its status.
func writeError(w http.ResponseWriter, err error) {
	var e *apiError
	if !errors.As(err, &e) {
		e = &apiError{Status: 500, Type: "server_error", Message: err.Error()}
	}
	w.Header().Set("Content-Type", "application/json")
	if e.Status == 503 {
		w.Header().Set("Retry-After", "1")
	}
	w.WriteHeader(e.Status)
	var param any
	if e.Param != "" {
		param = e.Param
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": e.Message, "type": e.Type, "param": param, "code": nil}})
}

// newID is a random response id with prefix.
func newID(prefix string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}
