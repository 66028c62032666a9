package bench

import (
	"io"

	"github.com/goeval/goeval/internal/gocpu"
)

// OpProfile starts timing every op goeval's pure-Go backend runs (the
// `--op-profile` flag of `goeval bench score|generate`); the returned
// function stops it and writes the n costliest op-and-shape entries and
// the time per op to w. Other backends run no gocpu op: the table then
// says so.
func OpProfile(w io.Writer, n int) (stop func()) {
	gocpu.SetOpStats(true)
	return func() {
		gocpu.SetOpStats(false)
		gocpu.WriteOpStats(w, n)
	}
}
