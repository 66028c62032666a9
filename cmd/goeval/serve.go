package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/serve"
)

func init() {
	register("serve", "serve a model over an OpenAI-compatible HTTP API (/v1/completions with echo+logprobs, /v1/chat/completions, streaming)", runServe)
}

// serveFlags are goeval serve's own flags.
type serveFlags struct {
	host, name        string
	port              int
	maxQueue, maxRows int
	window            time.Duration
	grace             time.Duration
}

func (s *serveFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.host, "host", "127.0.0.1", "address to listen on (0.0.0.0: every interface)")
	fs.IntVar(&s.port, "port", 8000, "TCP port (0: any free port; the one chosen is printed)")
	fs.StringVar(&s.name, "served-model-name", "", "the model id clients send as \"model\" (default: --model as given, as vLLM does, so lm-eval's model=PATH also finds the tokenizer)")
	fs.IntVar(&s.maxQueue, "max-queue", 256, "requests waiting for the model before new ones get 503 (Retry-After: 1)")
	fs.IntVar(&s.maxRows, "max-batch", 64, "requests (prompts × n) the model runs in one call, across clients")
	fs.DurationVar(&s.window, "batch-window", 5*time.Millisecond, "how long the first waiting request waits for others to share its call")
	fs.DurationVar(&s.grace, "shutdown-timeout", 30*time.Second, "on SIGINT/SIGTERM, how long to let running requests finish")
}

func (s *serveFlags) check() error {
	switch {
	case s.port < 0 || s.port > 65535:
		return errs.BadInputf("--port %d out of range: use 0–65535", s.port)
	case s.maxQueue < 1:
		return errs.BadInputf("--max-queue %d must be ≥ 1", s.maxQueue)
	case s.maxRows < 1:
		return errs.BadInputf("--max-batch %d must be ≥ 1", s.maxRows)
	case s.window < 0:
		return errs.BadInputf("--batch-window %v must be ≥ 0", s.window)
	}
	return nil
}

func runServe(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var f scoreFlags
	var s serveFlags
	f.register(fs)
	f.registerAdapter(fs)
	s.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: goeval serve --model DIR [--adapter DIR] [--port 8000] [flags]")
		fmt.Fprintln(fs.Output(), "Serves the model over OpenAI's API: GET /v1/models, POST /v1/completions (prompt as text or token ids; echo and logprobs ≤ 1 for log-likelihood clients such as lm_eval --model local-completions), POST /v1/chat/completions (the tokenizer's chat template), stream: true for server-sent events. Requests from concurrent clients share model calls. SIGINT/SIGTERM stop taking requests and let running ones finish.")
		fs.PrintDefaults()
	}
	if help, err := parseNoArgs(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return errs.BadInputf("serve takes no arguments, got %q", fs.Arg(0))
	}
	if err := s.check(); err != nil {
		return err
	}
	if f.model == "" {
		return errs.BadInputf("--model is required")
	}
	if err := checkModelDir(f.model); err != nil { // before taking the port
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(s.host, strconv.Itoa(s.port)))
	if err != nil {
		return errs.BadInputf("--host %s --port %d: %v (is another server using the port? pick another with --port)", s.host, s.port, err)
	}
	defer ln.Close()
	e, err := f.open()
	if err != nil {
		return err
	}
	defer e.Close()
	tok := e.Tokenizer()
	if tok == nil {
		return errs.BadInputf("--model %s has no tokenizer.json: serve needs one (or pass --tokenizer)", f.model)
	}
	eos, err := e.EOSIDs()
	if err != nil {
		return err
	}
	m := serve.Model{Name: s.name, LM: e, Scorer: e, Tok: tok, EOS: eos, MaxLength: e.MaxLength(), Vocab: e.Config().VocabSize}
	if m.Name == "" {
		m.Name = f.model
	}
	if tok.ChatTemplate() != "" {
		m.Chat = e
	}
	logger := log.New(os.Stderr, "goeval serve: ", log.Ltime)
	srv, err := serve.New(m, serve.Options{MaxQueue: s.maxQueue, MaxBatch: s.maxRows, BatchWindow: s.window, Logf: logger.Printf})
	if err != nil {
		return err
	}
	logger.Printf("model %q on %s; listening on http://%s/v1 (chat: %v)", m.Name, e.Device().Device, ln.Addr(), m.Chat != nil)
	return serveUntilSignal(ln, srv, s.grace, logger)
}

// serveUntilSignal serves until SIGINT/SIGTERM, then stops taking
// connections, lets running requests finish (up to grace) and stops the
// model's worker.
func serveUntilSignal(ln net.Listener, srv *serve.Server, grace time.Duration, logger *log.Logger) error {
	ctx, stop := signalContext()
	defer stop()
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 30 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		srv.Close()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Printf("%v: finishing running requests (up to %v)", context.Cause(ctx), grace)
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := hs.Shutdown(sctx)
	srv.Close()
	st := srv.Stats()
	logger.Printf("stopped after %d requests in %d model calls (at most %d in one)", st.Requests, st.Calls, st.MaxCallRequests)
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	return nil
}
