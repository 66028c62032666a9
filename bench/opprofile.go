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

// MemProfile starts recording the working set of every execution of
// goeval's pure-Go backend (the `--mem-profile` flag of `goeval bench
// generate`); the returned function stops it and writes the largest
// execution's peak of intermediate bytes and the values live at it to w.
func MemProfile(w io.Writer) (stop func()) {
	gocpu.SetMemStats(true)
	return func() {
		gocpu.SetMemStats(false)
		gocpu.WriteMemStats(w)
	}
}
