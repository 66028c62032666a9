package serve

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/goeval/goeval/lm"
)

// Batching across clients: every HTTP request becomes a job in one bounded
// queue; a single worker takes the first waiting job, waits up to the batch
// window for more (up to MaxBatch requests), and runs them as one LM call
// per kind — all generation requests in one GenerateUntil, all scoring
// requests in one ScoreTokens — so concurrent clients share forward passes.
// A generation call answers each job as its requests stop and takes more
// jobs from the queue while it runs (feed.go). The LM's answers never
// depend on the other requests of a call (the lm contract), so batching
// changes speed only. A full queue refuses new jobs at once
// (errOverloaded: 503), and a job whose client went away is dropped before
// it runs.

// errOverloaded: the queue is full.
var errOverloaded = errors.New("server overloaded: too many requests waiting")

// errClosed: the server is shutting down.
var errClosed = errors.New("server is shutting down")

// job is one HTTP request's LM work: generation or scoring requests.
type job struct {
	ctx     context.Context
	gen     []lm.GenerateRequest
	score   []lm.TokenScoreRequest
	onToken func(i int, id int32) // streaming: token id of gen[i], on the worker goroutine
	done    chan jobResult        // receives exactly one result
}

type jobResult struct {
	gen   []lm.GenerateResult
	score []lm.TokenScores
	err   error
}

func (j *job) size() int { return len(j.gen) + len(j.score) }

// scheduler owns the queue and the worker.
type scheduler struct {
	model    lm.LM
	scorer   lm.TokenScorer
	queue    chan *job
	window   time.Duration
	maxBatch int
	logf     func(string, ...any)

	mu     sync.RWMutex // guards closed against submit's send
	closed bool
	wg     sync.WaitGroup
	stats  Stats
	// aside is a job a running call's feed took from the queue but could
	// not feed (feed.go); the worker runs it next.
	aside *job
}

// Stats counts the scheduler's work (for logs and tests).
type Stats struct {
	Jobs, Calls, Requests int // jobs run, LM calls made, requests in them
	MaxCallRequests       int // the most requests one LM call held at its start
	Fed                   int // requests fed into a running call (feed.go), in Requests too
}

func newScheduler(m lm.LM, s lm.TokenScorer, o Options) *scheduler {
	sc := &scheduler{model: m, scorer: s, queue: make(chan *job, o.MaxQueue), window: o.BatchWindow,
		maxBatch: o.MaxBatch, logf: o.Logf}
	sc.wg.Add(1)
	go sc.run()
	return sc
}

// submit queues j or refuses it at once (full queue, shutting down).
func (s *scheduler) submit(j *job) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return errClosed
	}
	select {
	case s.queue <- j:
		return nil
	default:
		return errOverloaded
	}
}

// close stops taking jobs, lets the worker finish the queued ones, and
// waits for it.
func (s *scheduler) close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.queue)
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// run is the worker: take the job a running call set aside (feed.go), else
// the queue's next; gather a batch after it, run it; repeat until the
// queue is closed and empty.
func (s *scheduler) run() {
	defer s.wg.Done()
	for {
		first := s.aside
		s.aside = nil
		if first == nil {
			j, ok := <-s.queue
			if !ok {
				return
			}
			first = j
		}
		batch, _ := s.gather(first)
		s.runBatch(batch)
	}
}

// gather collects jobs arriving within the window after first, up to
// maxBatch requests; open is false once the queue is closed.
func (s *scheduler) gather(first *job) (batch []*job, open bool) {
	batch, n := []*job{first}, first.size()
	if s.window <= 0 {
		return batch, true
	}
	timer := time.NewTimer(s.window)
	defer timer.Stop()
	for n < s.maxBatch {
		select {
		case j, ok := <-s.queue:
			if !ok {
				return batch, false
			}
			batch, n = append(batch, j), n+j.size()
		case <-timer.C:
			return batch, true
		}
	}
	return batch, true
}

// runBatch runs a batch's generation and scoring requests, one LM call
// each, and answers every job.
func (s *scheduler) runBatch(batch []*job) {
	var gen, score []*job
	for _, j := range batch {
		switch {
		case j.ctx.Err() != nil:
			j.done <- jobResult{err: j.ctx.Err()}
		case len(j.gen) > 0:
			gen = append(gen, j)
		default:
			score = append(score, j)
		}
	}
	if len(gen) > 0 {
		s.runGenerate(gen)
	}
	if len(score) > 0 {
		s.runScore(score)
	}
}

func (s *scheduler) count(jobs []*job, reqs int) {
	s.mu.Lock()
	s.stats.Jobs += len(jobs)
	s.stats.Calls++
	s.stats.Requests += reqs
	s.stats.MaxCallRequests = max(s.stats.MaxCallRequests, reqs)
	s.mu.Unlock()
}

// runGenerate makes one GenerateUntil call for jobs, streaming tokens to
// the jobs that asked, and answers each job as soon as its last request is
// final (lm.WithDoneFunc: goeval's engine reports each request when it
// stops), so a short request does not wait for a long one of its call;
// the jobs the LM did not finish early are answered when the call returns.
// While it runs, the call may take more jobs from the queue into rows that
// free up (lm.WithFeed, feed.go).
func (s *scheduler) runGenerate(jobs []*job) {
	c := &genCall{s: s, early: &earlyAnswers{}}
	var reqs []lm.GenerateRequest
	for _, j := range jobs {
		reqs = append(reqs, c.add(j)...)
	}
	own := len(jobs)
	s.count(jobs, len(reqs))
	ctx := lm.WithTokenFunc(context.Background(), func(r int, id int32) {
		if j := c.jobs[c.slots[r].j]; j.onToken != nil {
			j.onToken(c.slots[r].i, id)
		}
	})
	ctx = lm.WithDoneFunc(ctx, func(r int, res lm.GenerateResult) { c.early.done(c.slots[r].j, c.slots[r].i, res) })
	ctx = lm.WithFeed(ctx, c.feed)
	var res []lm.GenerateResult
	err := safely(func() (err error) { res, err = s.model.GenerateUntil(ctx, reqs); return err })
	at := 0
	for ji, j := range c.jobs {
		n := len(j.gen)
		switch {
		case c.early.answered(ji):
		case err != nil:
			j.done <- jobResult{err: err}
		case ji >= own: // fed, and the LM returned without reporting it
			j.done <- jobResult{err: errors.New("the model returned without the result of a request fed into its call")}
		default:
			j.done <- jobResult{gen: res[at : at+n]}
		}
		if ji < own {
			at += n
		}
	}
}

// runScore makes one ScoreTokens call for jobs.
func (s *scheduler) runScore(jobs []*job) {
	var reqs []lm.TokenScoreRequest
	for _, j := range jobs {
		reqs = append(reqs, j.score...)
	}
	s.count(jobs, len(reqs))
	var res []lm.TokenScores
	err := safely(func() (err error) { res, err = s.scorer.ScoreTokens(context.Background(), reqs); return err })
	at := 0
	for _, j := range jobs {
		if err != nil {
			j.done <- jobResult{err: err}
			continue
		}
		j.done <- jobResult{score: res[at : at+len(j.score)]}
		at += len(j.score)
	}
}

// safely runs f, turning a panic into an error: the worker must answer
// every job whatever the LM does.
func safely(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("model call panicked: %v", r)
		}
	}()
	return f()
}

// snapshot returns the counters.
func (s *scheduler) snapshot() Stats {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.stats
}
