package engine

import (
	"math"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/gomlx/gomlx/backends"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/models"
	"github.com/goeval/goeval/models/safetensors"
)

// Engine scores requests with a Hugging Face checkpoint on a GoMLX backend.
// It implements LM. Methods are safe for concurrent use (calls are
// serialized).
type Engine struct {
	opts    Options
	cfg     *models.Config
	model   models.Model
	backend backends.Backend
	spec    string // backend spec, e.g. "go" or "xla:/…/plugin.so"
	ctx     *mlctx.Context
	maxLen  int
	batch   int
	prefix  int32

	mu    sync.Mutex
	execs map[bool]*mlctx.Exec // keyed by withTokens
	seen  map[string]bool      // compiled shapes
	stats Stats
	gen   *genState // generation graphs (generate.go), created on first use

	// Adapters (adapter.go): the separate-mode adapter applied (-1: none),
	// how many the context holds, and whether this Engine is a WithAdapter
	// view that shares (and must not free) the weights.
	adapter, numAdapters int
	view                 bool
}

// Stats are cumulative counters for logs and benchmarks.
type Stats struct {
	Compiles     int           // distinct graph shapes compiled
	CompileTime  time.Duration // time spent compiling them
	Batches      int           // forward passes run
	Tokens       int           // real (unpadded) input tokens run
	PaddedTokens int           // B·T summed over batches
	ExecTime     time.Duration // time in forward passes (excluding compiles)
	LastB, LastT int           // shape of the last batch
	LastK        int
	Backend      string // backend spec
	BackendName  string // backend description
}

var _ lm.LM = (*Engine)(nil)

// Open loads the checkpoint in modelDir (config.json + safetensors) onto
// the backend chosen by opts.
func Open(modelDir string, opts Options) (*Engine, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	dtype, _ := opts.computeDType()
	cfg, err := models.LoadConfig(modelDir)
	if err != nil {
		return nil, err
	}
	model, err := models.New(cfg)
	if err != nil {
		return nil, err
	}
	spec, err := backendSpec(opts)
	if err != nil {
		return nil, err
	}
	spec = safeGoSpec(spec)
	e := &Engine{opts: opts, cfg: cfg, model: model, spec: spec, ctx: mlctx.New(),
		execs: map[bool]*mlctx.Exec{}, seen: map[string]bool{}, adapter: -1}
	if err := tryCatch("backend "+spec, func() (err error) { e.backend, err = newBackend(spec); return err }); err != nil {
		return nil, err
	}
	set, err := safetensors.Open(modelDir)
	if err != nil {
		return nil, err
	}
	defer set.Close()
	start := time.Now()
	tf, separate, err := e.loadAdapters(set)
	if err != nil {
		return nil, err
	}
	if err := tryCatch("load weights", func() error { return models.LoadWeightsWith(e.ctx, e.backend, cfg, set, dtype, tf) }); err != nil {
		return nil, err
	}
	if err := tryCatch("load adapters", func() error { return e.storeAdapters(separate, dtype) }); err != nil {
		return nil, err
	}
	e.setLimits()
	if e.backend.String() == "go" { // simplego: the weights live in the Go heap
		limitHeap(int64(e.ctx.NumParameters()) * int64(dtype.Size()))
	}
	opts.logf("loaded %s (%s) in %v on %s, dtype %s, max_length %d", modelDir, cfg.Arch(), time.Since(start).Round(time.Millisecond), e.backend.Name(), dtype, e.maxLen)
	e.stats.Backend, e.stats.BackendName = spec, e.backend.Name()
	return e, nil
}

// setLimits resolves max length, batch size and the prefix token.
func (e *Engine) setLimits() {
	e.maxLen = e.opts.MaxLength
	if e.maxLen == 0 {
		e.maxLen = e.cfg.MaxPositionEmbeddings
	}
	if e.maxLen <= 0 {
		e.maxLen = 2048
	}
	e.batch = e.opts.BatchSize
	if e.batch == 0 {
		e.batch = defaultBatchSize
	}
	e.prefix = e.prefixToken()
}

// prefixToken is lm-eval's prefix_token_id: the override, else BOS, else EOS.
func (e *Engine) prefixToken() int32 {
	if p := e.opts.PrefixToken; p != nil {
		return *p
	}
	if tok := e.opts.Tokenizer; tok != nil {
		if id, ok := tok.BOS(); ok {
			return id
		}
	}
	if e.cfg.BOSTokenID >= 0 {
		return int32(e.cfg.BOSTokenID)
	}
	if tok := e.opts.Tokenizer; tok != nil {
		if id, ok := tok.EOS(); ok {
			return id
		}
	}
	if len(e.cfg.EOSTokenIDs) > 0 {
		return int32(e.cfg.EOSTokenIDs[0])
	}
	return 0
}

// Config returns the model's config.json.
func (e *Engine) Config() *models.Config { return e.cfg }

// MaxLength is the resolved max_length.
func (e *Engine) MaxLength() int { return e.maxLen }

// BatchSize is the resolved batch size.
func (e *Engine) BatchSize() int { return e.batch }

// Stats returns the cumulative counters.
func (e *Engine) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stats
}

// Close frees the compiled graphs and the weights.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, x := range e.execs {
		x.Finalize()
	}
	e.execs = nil
	e.gen.finalize()
	e.gen = nil
	if e.ctx != nil && !e.view {
		e.ctx.Finalize()
		e.ctx = nil
	}
	return nil
}

// NumParameters is the number of weight values loaded.
func (e *Engine) NumParameters() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ctx == nil {
		return 0
	}
	return e.ctx.NumParameters()
}

// limitHeap sets a soft Go memory limit of about 1.3× the weights (plus
// 256 MiB) unless GOMEMLIMIT is set or a limit exists. Without it the Go
// GC lets the heap grow to twice the live weights before collecting the
// backend's per-call temporaries (e.g. simplego's blocked matmul copies).
func limitHeap(weightBytes int64) {
	if os.Getenv("GOMEMLIMIT") != "" || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		return
	}
	debug.SetMemoryLimit(weightBytes*13/10 + 256<<20)
}
