package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gomlx/gomlx/backends"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/lm/lmenc"
	"github.com/goeval/goeval/models"
	"github.com/goeval/goeval/models/tokenizer"
)

// Engine scores requests with a Hugging Face checkpoint on a GoMLX backend.
// It implements lm.LM, lm.ChatTemplater and lm.Describer. Methods are safe
// for concurrent use (calls are serialized).
type Engine struct {
	opts    Options
	dir     string // the checkpoint folder (Fingerprint)
	cfg     *models.Config
	model   models.Model
	tok     *tokenizer.Tokenizer // dir's tokenizer, or Options.Tokenizer when it is one; may be nil
	backend backends.Backend
	spec    string // backend spec, e.g. "go" or "xla:/…/plugin.so"
	device  DeviceChoice
	// fixShapes fixes shapes as on a GPU (fixedShapes, genshapes.go;
	// tests set it elsewhere).
	fixShapes bool
	// wholeRows keeps a long prompt or scored row in one pass (no chunked
	// prefill or scoring): LLM.int8 with outlier columns finds them over
	// the row's tokens, as one transformers forward does.
	wholeRows bool
	ctx       *mlctx.Context
	prec      precision // the resolved dtype (dtype.go)
	softmax   string    // the log-softmax's dtype, as lm-eval's softmax_dtype (lpround.go)
	lpRound   lpRound   // log-probs rounded as lm-eval's half-precision log-softmax (nil: none)
	maxLen    int
	batch     int
	prefix    int32

	mu    sync.Mutex
	execs scoreExecs
	seen  map[string]bool // compiled shapes
	stats Stats
	gen   *genState // generation graphs (generate.go), created on first use
	// prefixes are the cached prefixes (prefixkv.go); nil with packing off.
	prefixes *prefixStore

	// Adapters (adapter.go): the separate-mode adapter applied (-1: none),
	// how many the context holds, whether this Engine is a WithAdapter view
	// that shares (and must not free) the weights, and the views still open
	// (closed before the weights).
	adapter, numAdapters int
	view                 bool
	views                []*Engine
}

// scoreExecs are the scoring graphs (score.go): the hidden states of
// unpacked and packed rows, and the LM head (each made on first use).
// Packed rows after a cached prefix and the prefix itself have graphs of
// their own (prefixkv.go).
type scoreExecs struct{ unpacked, packed, after, prefix, head, chunk *graphExecs }

// finalize frees the compiled graphs.
func (x *scoreExecs) finalize() {
	for _, g := range []*graphExecs{x.unpacked, x.packed, x.after, x.prefix, x.head, x.chunk} {
		g.finalize()
	}
	*x = scoreExecs{}
}

// Stats are cumulative counters for logs and benchmarks.
type Stats struct {
	Compiles     int           // distinct graph shapes compiled
	CompileTime  time.Duration // time spent compiling them
	Batches      int           // forward passes run
	Tokens       int           // real (unpadded) input tokens run (= TokensComputed)
	PaddedTokens int           // B·T summed over batches
	// TokensRequested is Σ over scored rows (duplicates included) of their
	// input tokens, context + continuation − 1 after truncation: what
	// scoring each request in its own unpadded row would run.
	// TokensComputed is the real (non-padding) tokens that went through the
	// model: less after deduplication and packing's shared contexts, a few
	// more for packing's repeated prefix tails (plan/pack.go).
	TokensRequested, TokensComputed int
	ExecTime                        time.Duration // time in forward passes (excluding compiles)
	LastB, LastT                    int           // shape of the last batch
	LastK                           int
	// HeadRows is the most slots one LM-head call took (Kc, head.go) and
	// HeadCalls the calls run.
	HeadRows, HeadCalls int
	// PrefixComputed is the cached prefixes run (prefixkv.go), PrefixHits
	// the passes that found theirs in the store, PrefixPeakBytes the most
	// the store has held (at most Options.PrefixCacheMB).
	PrefixComputed, PrefixHits int
	PrefixPeakBytes            int64
	// Batch is the most rows a scoring pass takes now: Options.BatchSize,
	// or the auto batch, halved by each out-of-memory back-off of a
	// scoring pass; Backoffs counts the halvings of scoring and generation
	// passes (oom.go).
	Batch, Backoffs int
	Backend         string // backend spec
	BackendName     string // backend description
}

var (
	_ lm.LM            = (*Engine)(nil)
	_ lm.ChatTemplater = (*Engine)(nil)
	_ lm.Describer     = (*Engine)(nil)
)

// Open loads the Hugging Face checkpoint in dir (config.json, safetensors,
// tokenizer.json) onto the backend chosen by opts, with its tokenizer for
// string requests: Options.Tokenizer when set, else dir's tokenizer.json; a
// checkpoint without one serves token-id requests only. Errors name dir.
func Open(dir string, opts Options) (*Engine, error) {
	e, err := open(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", dir, err)
	}
	return e, nil
}

// open is Open without the error context.
func open(dir string, opts Options) (*Engine, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	tok, err := loadTokenizer(dir, &opts)
	if err != nil {
		return nil, err
	}
	choice, spec, name, err := resolveSpec(dir, opts)
	if err != nil {
		return nil, err
	}
	e := &Engine{opts: opts, dir: dir, tok: tok, spec: spec, device: choice, seen: map[string]bool{}, adapter: -1}
	e.prefixes = e.newPrefixes()
	if choice.Notice != "" {
		opts.logf("device %s: %s", choice, choice.Notice)
	}
	if err := tryCatch("backend "+spec, func() (err error) { e.backend, err = opts.backendFor(spec); return err }); err != nil {
		return nil, err
	}
	e.prec = precisionOn(e.backend, name)
	e.softmax = softmaxDTypeOf(opts.SoftmaxDType, name)
	e.lpRound, _ = lpRoundOf(e.softmax) // checked by Options.validate
	dtype := e.prec.compute
	start := time.Now()
	var l *models.Loaded
	lo := models.LoadOptions{DType: dtype, WeightDType: e.prec.weights, Dequantize4Bit: opts.Dequantize4Bit, Dequantize8Bit: opts.Dequantize8Bit, Adapters: opts.Adapters, AdapterMode: opts.AdapterMode,
		LoadIn4Bit: opts.LoadIn4Bit, LoadIn8Bit: opts.LoadIn8Bit, Logf: opts.Logf, Dequantize4BitFits: dequantize4BitFits(choice.Device, opts)}
	if err := tryCatch("load weights", func() (err error) { l, err = models.Load(e.backend, dir, lo); return err }); err != nil {
		return nil, err
	}
	e.cfg, e.model, e.ctx = l.Config, l.Model, l.Context
	if models.Int8SplitsOutliers(l.Config, lo) && e.opts.packing() {
		// LLM.int8's outlier columns are found over a request's own tokens
		// (bitsandbytes runs one request per forward): rows unpacked, no
		// prefix shared between requests.
		e.opts.Packing = "off"
		opts.logf("%s: loglikelihood rows unpacked, prompt prefixes not shared", models.Int8Compute(l.Config, lo))
	}
	// …and over its whole row at once: a long row is not cut in chunks.
	e.wholeRows = models.Int8SplitsOutliers(l.Config, lo)
	if l.NumAdapters > 0 {
		e.numAdapters, e.adapter = l.NumAdapters, 0
	}
	e.setLimits()
	if inGoHeap(e.backend) { // the weights live in the Go heap
		limitHeap(weightBytes(e.ctx))
	}
	opts.logf("loaded %s (%s) in %v on %s, %s, max_length %d", dir, e.cfg.Describe(), time.Since(start).Round(time.Millisecond), e.backend.Name(), e.prec, e.maxLen)
	e.stats.Backend, e.stats.BackendName = spec, e.backend.Name()
	return e, nil
}

// loadTokenizer returns the tokenizer of dir (tokenizer.json) unless
// o.Tokenizer is set, and sets o.Tokenizer to it; nil without one.
func loadTokenizer(dir string, o *Options) (*tokenizer.Tokenizer, error) {
	if o.Tokenizer != nil {
		tok, _ := o.Tokenizer.(*tokenizer.Tokenizer)
		return tok, nil
	}
	if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	tok, err := tokenizer.Load(dir)
	if err != nil {
		return nil, err
	}
	o.Tokenizer = tok
	return tok, nil
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
	e.prefix = prefixToken(e.opts.PrefixToken, e.opts.Tokenizer, e.cfg)
}

// prefixToken is lm-eval's prefix_token_id (HFLM.prefix_token_id): the
// override, else the tokenizer's BOS, else the tokenizer's EOS — never
// config.json's bos_token_id, which differs from both on Qwen chat
// checkpoints (config bos <|endoftext|>, tokenizer eos <|im_end|>). Only
// without a tokenizer, or one naming neither token, do config.json's ids
// stand in.
func prefixToken(override *int32, tok Tokenizer, cfg *models.Config) int32 {
	if override != nil {
		return *override
	}
	if tok != nil {
		if id, ok := tok.BOS(); ok {
			return id
		}
		if id, ok := tok.EOS(); ok {
			return id
		}
	}
	if cfg.BOSTokenID >= 0 {
		return int32(cfg.BOSTokenID)
	}
	if len(cfg.EOSTokenIDs) > 0 {
		return int32(cfg.EOSTokenIDs[0])
	}
	return 0
}

// Device is the device the engine runs on and how it was chosen.
func (e *Engine) Device() DeviceChoice { return e.device }

// specials are the engine's add_special_tokens rules (encode.go).
func (e *Engine) specials() lmenc.Specials {
	return lmenc.Specials{Prefix: e.prefix, AddBOS: e.opts.AddBOSToken}
}

// PrefixToken is the resolved prefix token (prefixToken).
func (e *Engine) PrefixToken() int32 { return e.prefix }

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
	s := e.stats
	s.PrefixPeakBytes = e.prefixes.peakBytes()
	s.Batch = e.batch
	return s
}

// Close frees the engine: for a WithAdapter view its compiled graphs, for
// an opened engine its open views' graphs and then the weights. Closing
// twice is harmless.
func (e *Engine) Close() error {
	e.mu.Lock()
	views := e.views
	e.views = nil
	e.mu.Unlock()
	for _, v := range views {
		if err := v.Close(); err != nil {
			return fmt.Errorf("close adapter view: %w", err)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.prefixes.close()
	e.execs.finalize()
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
	return models.NumParameters(e.ctx)
}
