package serve

import (
	"sync"

	"github.com/goeval/goeval/lm"
)

// A running generation call takes more work while it runs: when a row of
// its cache frees up, goeval's engine asks the call's feed (lm.WithFeed)
// for requests, and the feed takes generation jobs from the queue whose
// requests fit the free rows and the running cache. The first job it cannot
// feed — a scoring job, one with more requests than the free rows, one that
// does not fit — ends the feeding: it is set aside (scheduler.aside) and
// runs first once the call returns, so the queue keeps its order and no job
// waits behind an endless call. Each job is answered as its requests
// finish (earlyAnswers), fed or not.

// genCall is one GenerateUntil call's jobs, its own and fed, and the job
// and choice of each of its request indices. Its methods run on the
// worker's goroutine (the LM calls the feed and the token function from
// its loop), except earlyAnswers, which locks.
type genCall struct {
	s     *scheduler
	jobs  []*job
	slots []slot
	early *earlyAnswers
}

// slot is a request's job (index in genCall.jobs) and choice in the job.
type slot struct{ j, i int }

// add makes j one of the call's jobs and returns its requests.
func (c *genCall) add(j *job) []lm.GenerateRequest {
	ji := len(c.jobs)
	c.jobs = append(c.jobs, j)
	c.early.add(j)
	for i := range j.gen {
		c.slots = append(c.slots, slot{ji, i})
	}
	return j.gen
}

// feed is the call's lm.FeedFunc: jobs from the queue while their
// requests fit the free rows, without waiting for any.
func (c *genCall) feed(rows int, fits func(lm.GenerateRequest) bool) []lm.GenerateRequest {
	s := c.s
	var out []lm.GenerateRequest
	for s.aside == nil {
		var j *job
		select {
		case q, ok := <-s.queue:
			if !ok {
				return out
			}
			j = q
		default:
			return out
		}
		switch {
		case j.ctx.Err() != nil:
			j.done <- jobResult{err: j.ctx.Err()}
		case !feedable(j, rows-len(out), fits):
			s.aside = j
		default:
			out = append(out, c.add(j)...)
			s.countFed(len(j.gen))
		}
	}
	return out
}

// feedable reports whether j's requests can join a running call with rows
// free rows.
func feedable(j *job, rows int, fits func(lm.GenerateRequest) bool) bool {
	if len(j.gen) == 0 || len(j.gen) > rows {
		return false
	}
	for _, q := range j.gen {
		if !fits(q) {
			return false
		}
	}
	return true
}

// countFed counts n requests of one job fed into a running call.
func (s *scheduler) countFed(n int) {
	s.mu.Lock()
	s.stats.Jobs++
	s.stats.Requests += n
	s.stats.Fed += n
	s.mu.Unlock()
}

// earlyAnswers answers a call's jobs as their requests finish.
type earlyAnswers struct {
	mu   sync.Mutex
	jobs []earlyJob
}

// earlyJob is one job's results so far.
type earlyJob struct {
	j    *job
	gen  []lm.GenerateResult
	got  []bool // which requests are final
	left int    // requests not final yet
	sent bool
}

// add appends job j.
func (a *earlyAnswers) add(j *job) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.jobs = append(a.jobs, earlyJob{j: j, gen: make([]lm.GenerateResult, len(j.gen)), got: make([]bool, len(j.gen)), left: len(j.gen)})
}

// done records request i of job ji and answers the job when it was its
// last; a request reported twice counts once.
func (a *earlyAnswers) done(ji, i int, res lm.GenerateResult) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e := &a.jobs[ji]
	if e.sent || e.got[i] {
		return
	}
	e.gen[i], e.got[i] = res, true
	if e.left--; e.left == 0 {
		e.sent = true
		e.j.done <- jobResult{gen: e.gen} // buffered: never blocks
	}
}

// answered reports whether job ji was answered early.
func (a *earlyAnswers) answered(ji int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.jobs[ji].sent
}
