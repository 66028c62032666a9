package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/lm/lmsplit"
)

// --devices: every device of --device's backend (several GPUs; XLA's host
// devices), one model replica per device (engine.OpenReplicas), each
// call's requests dealt to them by tokens (lm/lmsplit).

const devicesHelp = "the devices of --device's backend to run on: all (default: every one it has), or their numbers, e.g. 0,1. " +
	"One model replica per device, each call's requests dealt to them by tokens (requests sharing a context together); " +
	"results are those of one device. The pure-Go backend has one device; XLA's CPU plugin has XLA_FLAGS=--xla_force_host_platform_device_count=N"

// planDevices settles --devices: nil for all, else the device numbers.
func (p *runPlan) planDevices(f *runFlags) error {
	s := strings.TrimSpace(f.scale.devices)
	if s == "" || s == "all" {
		return nil
	}
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		d, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || d < 0 || seen[d] {
			return errs.BadInputf("--devices %q: give all, or distinct device numbers from 0, e.g. 0,1", f.scale.devices)
		}
		seen[d] = true
		p.devices = append(p.devices, d)
	}
	if len(p.devices) > 1 && len(f.adapters) > 0 {
		return errs.BadInputf("--devices %s with --adapter: a base and its adapters run on one device; give one device", f.scale.devices)
	}
	return nil
}

// openEngine opens the checkpoint in dir on the plan's devices: one
// engine, or a replica per device behind lmsplit.
func (r *runner) openEngine(dir string) (openedModel, func(), error) {
	p := r.plan
	engs, err := engine.OpenReplicas(dir, p.engine, p.devices)
	if err != nil {
		return openedModel{}, nil, err
	}
	closeAll := func() {
		for _, e := range engs {
			e.Close()
		}
	}
	if len(engs) == 1 {
		return engineModel(engs[0]), closeAll, nil
	}
	copies := make([]lm.LM, len(engs))
	var nums []string
	for i, e := range engs {
		copies[i] = e
		nums = append(nums, strconv.Itoa(e.DeviceNum()))
	}
	var count func(string) int
	if tok := engs[0].Tokenizer(); tok != nil {
		count = func(s string) int { return len(tok.Encode(s, false)) }
	}
	m := engineModel(engs[0])
	m.lm, m.replicas = lmsplit.New(copies, count), engs
	fmt.Fprintf(os.Stderr, "devices: %d replicas of the model (devices %s); requests dealt by tokens\n", len(engs), strings.Join(nums, ", "))
	return m, closeAll, nil
}

// work is the engine work of m's replicas (its engine's, with one).
func (m openedModel) work() engine.Work {
	if len(m.replicas) == 0 {
		return m.eng.Work()
	}
	var w engine.Work
	for _, e := range m.replicas {
		w = w.Plus(e.Work())
	}
	return w
}
