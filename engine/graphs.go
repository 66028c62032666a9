package engine

import (
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/engine/plan"
	"github.com/goeval/goeval/internal/env"
)

// Compiled graphs. Each of the engine's graphs (scoring rows, packed rows,
// LM head, prefill, extend, decode) is one graph-building function compiled
// once per input shape. Where a new shape costs next to nothing (goeval's
// pure-Go backend: cheapShapes) one GoMLX Exec holds all its shapes. Where
// it costs an XLA compile (1 s on a CPU, 5–12 s on a GPU at Qwen2.5-0.5B)
// each shape gets an Exec of its own, so that a call's shapes, known
// before it runs, compile several at a time (compileAhead): GoMLX compiles
// under its Exec's cache lock, one shape after the other.

// graphExecs is one graph function's Execs: one for every shape, or one
// per shape.
type graphExecs struct {
	build    func() (*mlctx.Exec, error)
	perShape bool
	// once: each shape's graph runs once and is then freed (oneShot).
	once    bool
	one     *mlctx.Exec
	byShape map[string]*mlctx.Exec
}

// newGraphExecs returns the Execs of graph function fn (made on first
// use), one per shape unless shapes are cheap.
func newGraphExecs[F mlctx.ExecGraphFn](e *Engine, name string, fn F) *graphExecs {
	backend, ctx := e.backend, e.ctx
	return &graphExecs{
		perShape: !e.cheapShapes(),
		build: func() (*mlctx.Exec, error) {
			x, err := mlctx.NewExec(backend, ctx, fn)
			if err != nil {
				return nil, fmt.Errorf("%s graph: %w", name, err)
			}
			x.SetMaxCache(256)
			return x, nil
		},
	}
}

// exec returns the Exec that runs the given shape (a key naming it).
func (g *graphExecs) exec(shape string) (*mlctx.Exec, error) {
	if !g.perShape {
		if g.one == nil {
			x, err := g.build()
			if err != nil {
				return nil, err
			}
			g.one = x
		}
		return g.one, nil
	}
	if x, ok := g.byShape[shape]; ok {
		return x, nil
	}
	x, err := g.build()
	if err != nil {
		return nil, err
	}
	if g.byShape == nil {
		g.byShape = map[string]*mlctx.Exec{}
	}
	g.byShape[shape] = x
	return x, nil
}

// oneShot returns the Execs of a graph function each of whose shapes
// runs once (a long row's chunks: each chunk attends to a different
// number of keys, so each is a shape of its own): one Exec per shape,
// freed after its run (done). Kept, the chunks' graphs of one 32 k-token
// prompt held 550 MB at the 0.5B shape (each chunk's graph grows with its
// keys: 128 query chunks of attention a layer at 32 k), and building one
// again takes under 0.4 s, against ~40 s to run it.
func oneShot(g *graphExecs) *graphExecs {
	g.perShape, g.once = true, true
	return g
}

// done frees shape's Exec after its run where g's shapes run once, and
// forgets that the engine compiled it (compileOnce compiles it again).
func (g *graphExecs) done(e *Engine, shape string) {
	if !g.once {
		return
	}
	if x, ok := g.byShape[shape]; ok {
		x.Finalize()
		delete(g.byShape, shape)
		delete(e.seen, shape)
	}
}

// finalize frees the compiled graphs (g may be nil).
func (g *graphExecs) finalize() {
	if g == nil {
		return
	}
	if g.one != nil {
		g.one.Finalize()
	}
	for _, x := range g.byShape {
		x.Finalize()
	}
	g.one, g.byShape = nil, nil
}

// graphBuild serialises building graphs (not compiling them): a GoMLX
// context's maps (scopes; graph parameters, which separate-mode adapters
// set) are not safe for concurrent use, and compileAhead compiles several
// shapes at once. Every graph function of the engine holds it.
var graphBuild sync.Mutex

// building locks graphBuild and returns its unlock: defer building()().
func building() func() {
	graphBuild.Lock()
	return graphBuild.Unlock
}

// compileJob is one shape to compile: key is its name in Engine.seen and
// the log, args are inputs of its shapes (their values are not used).
type compileJob struct {
	graphs *graphExecs
	key    string
	args   []any
}

// compileAhead compiles the jobs' shapes not compiled yet, up to
// compileWorkers at a time (the caller holds e.mu). The time counted in
// Stats.CompileTime is the wall time waited, not the sum of the compiles.
func (e *Engine) compileAhead(jobs []compileJob) error {
	var todo []compileJob
	queued := map[string]bool{}
	for _, j := range jobs {
		if !e.seen[j.key] && !queued[j.key] {
			queued[j.key] = true
			todo = append(todo, j)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	execs := make([]*mlctx.Exec, len(todo))
	for i, j := range todo { // Exec creation touches the graphExecs' maps: here, not in the workers
		x, err := j.graphs.exec(j.key)
		if err != nil {
			return err
		}
		execs[i] = x
		// PreCompile moves its tensor inputs to the device, and jobs share
		// some (a generation call's cache): each moves here, once, so that
		// the workers only read them.
		for _, a := range j.args {
			if t, ok := a.(*tensors.Tensor); ok {
				if _, err := t.Buffer(e.backend, 0); err != nil {
					return fmt.Errorf("compile %s graph: input to the device: %w", j.key, err)
				}
			}
		}
	}
	start := time.Now()
	hits0, _ := CompileCacheStats()
	took := make([]time.Duration, len(todo))
	errs := make([]error, len(todo))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(compileWorkers(), len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				t0 := time.Now()
				errs[i] = tryCatch("compile "+todo[i].key, func() error { return execs[i].PreCompile(todo[i].args...) })
				took[i] = time.Since(t0)
			}
		}()
	}
	for i := range todo {
		work <- i
	}
	close(work)
	wg.Wait()
	wall := time.Since(start)
	for i, j := range todo {
		if errs[i] != nil {
			return fmt.Errorf("compile %s graph: %w", j.key, errs[i])
		}
		e.seen[j.key] = true
		e.stats.Compiles++
		e.opts.logf("compiled %s graph in %v (ahead, %d at a time)", j.key, took[i].Round(time.Millisecond), min(compileWorkers(), len(todo)))
	}
	e.stats.CompileTime += wall
	if hits, _ := CompileCacheStats(); hits > hits0 {
		e.opts.logf("%d of those %d graphs loaded from the compile cache", hits-hits0, len(todo))
	}
	return nil
}

// compileWorkers is how many shapes compile at once: GOEVAL_COMPILE_WORKERS
// when set (1 compiles one after the other), else one per CPU up to 8 (each
// holds its own HLO and code). XLA's GPU compiler already runs part of one
// compile on several threads: on an H100 four shapes at once took 1.8× less
// time than one after the other, not 4×.
func compileWorkers() int {
	if n, err := strconv.Atoi(env.CompileWorkers.Get()); err == nil && n > 0 {
		return n
	}
	return max(1, min(runtime.NumCPU(), 8))
}

// compileScoring compiles the shapes of a scoring call's passes and their
// LM-head chunks ahead, where shapes cost a compile.
func (e *Engine) compileScoring(pl *plan.Plan) error {
	if e.cheapShapes() {
		return nil
	}
	dtype := e.prec.compute
	var jobs []compileJob
	for i := range pl.Passes {
		p := &pass{Layout: pl.Passes[i].Blank()}
		if p.Kind == plan.After { // B prefixes (passPrefixes)
			for range p.B {
				p.prefixKV = append(p.prefixKV, e.prefixShapes(pl.PrefixSlots)...)
			}
		}
		jobs = append(jobs, compileJob{e.scoreGraphs(p.Kind), p.key(), p.args()})
		kc := min(p.K, headRows(e.cfg.VocabSize)) // every chunk has kc rows off exact shapes
		h := tensors.FromShape(shapes.Make(dtype, kc, e.cfg.HiddenSize))
		jobs = append(jobs, compileJob{e.headGraphs(), headKey(kc), []any{h, tensors.FromShape(shapes.Make(dtypes.Int32, kc))}})
	}
	return e.compileAhead(jobs)
}
