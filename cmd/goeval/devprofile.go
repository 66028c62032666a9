package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/goeval/goeval/bench"
	"github.com/goeval/goeval/internal/env"
)

// Profiling any command, for developers: GOEVAL_CPUPROFILE=FILE writes a
// pprof CPU profile of the whole command, GOEVAL_OP_PROFILE=N prints the N
// costliest op-and-shape entries of goeval's pure-Go backend to stderr when
// the command ends (as `goeval bench … --op-profile N` does), and
// GOEVAL_MEM_PROFILE=1 the largest working set of intermediates one of its
// executions held (as `goeval bench generate --mem-profile`). All are off
// when unset; a value that cannot be used is one line and exit status 2.

// startDevProfiles starts what the environment asks for; stop ends it.
func startDevProfiles() (stop func(), err error) {
	memOn, err := memProfileOn() // checked before anything starts
	if err != nil {
		return nil, err
	}
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	if v := env.OpProfile.Get(); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("$%s=%q: want a positive number of entries, or unset it", env.OpProfile, v)
		}
		stops = append(stops, bench.OpProfile(os.Stderr, n))
	}
	if memOn {
		stops = append(stops, bench.MemProfile(os.Stderr))
	}
	if path := env.CPUProfile.Get(); path != "" {
		f, err := os.Create(path)
		if err != nil {
			stop()
			return nil, fmt.Errorf("$%s: %v", env.CPUProfile, err)
		}
		end, err := startCPUProfile(f)
		if err != nil {
			f.Close()
			stop()
			return nil, err
		}
		stops = append(stops, func() { end(); f.Close() })
	}
	return stop, nil
}

// memProfileOn reads GOEVAL_MEM_PROFILE: 1, true, yes or on; 0, false, no,
// off or unset.
func memProfileOn() (bool, error) {
	switch v := strings.ToLower(strings.TrimSpace(env.MemProfile.Get())); v {
	case "1", "true", "yes", "on":
		return true, nil
	case "", "0", "false", "no", "off":
		return false, nil
	default:
		return false, fmt.Errorf("$%s=%q: want 1, true, yes or on (or unset it)", env.MemProfile, env.MemProfile.Get())
	}
}
