package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/gomlx/gomlx/backends"

	"github.com/goeval/goeval/internal/env"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models"
)

// Every device of a backend: OpenReplicas loads a model once per device
// of one backend (one PJRT client), each replica an Engine of its own
// (weights, compiled graphs, caches) on its device (Options.DeviceNum).
// lm/lmsplit deals requests to them.
//
// GoMLX v0.26 runs a graph that is not distributed on device 0 (its
// Execs take a device assignment only for SPMD or auto-sharded graphs,
// whose variables then need sharding specs), so an engine on device k
// sees the backend through deviceView: a backend of one device, k. Its
// weights are loaded straight onto k and its graphs are compiled exactly
// as on device 0 (portable executables) and run on k: the same programs,
// the same numbers.

// hostDevices is the number of devices XLA's CPU plugin is to have: N of
// XLA_FLAGS' --xla_force_host_platform_device_count=N, else 1. The plugin
// reads no XLA_FLAGS for it (it takes a client option, cpu_device_count)
// and has 4 devices by default, which --devices all would turn into 4
// replicas, each compiling its own shapes.
func hostDevices() int {
	const flag = "--xla_force_host_platform_device_count="
	n := 1
	for _, f := range strings.Fields(env.XLAFlags.Get()) {
		if v, ok := strings.CutPrefix(f, flag); ok {
			if k, err := strconv.Atoi(v); err == nil && k > 0 {
				n = k
			}
		}
	}
	return n
}

// resolveSpec is the device choice, backend spec and dtype (ResolveDType:
// auto by device and the checkpoint's torch_dtype) the checkpoint in dir
// resolves to under opts.
func resolveSpec(dir string, opts Options) (choice DeviceChoice, spec, dtype string, err error) {
	if choice, err = deviceChoice(context.Background(), opts); err != nil {
		return DeviceChoice{}, "", "", err
	}
	cfg, err := models.LoadConfig(dir)
	if err != nil {
		return DeviceChoice{}, "", "", err
	}
	if dtype, err = ResolveDType(opts.DType, choice.Device, cfg.TorchDType); err != nil {
		return DeviceChoice{}, "", "", err
	}
	return choice, safeGoSpec(choice.Spec), dtype, nil
}

// backendFor is the backend an engine of opts runs on: OpenReplicas'
// shared one, or a new one for spec; opts.DeviceNum must be one of its
// devices.
func (o Options) backendFor(spec string) (backends.Backend, error) {
	b := o.shared
	if b == nil {
		var err error
		if b, err = newBackend(spec, compileCacheOf(o)); err != nil {
			return nil, err
		}
	}
	if n := b.NumDevices(); o.DeviceNum < 0 || o.DeviceNum >= n {
		return nil, errs.BadInputf("device %d: the %s backend has %d device%s (0–%d)", o.DeviceNum, b.Name(), n, plural(n), n-1)
	}
	if o.DeviceNum > 0 {
		return &deviceView{Backend: b, dev: backends.DeviceNum(o.DeviceNum)}, nil
	}
	return b, nil
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// OpenReplicas opens the checkpoint in dir once per device of devices
// (nil: every device of the backend opts resolve to; opts.DeviceNum is
// ignored), all on one backend. With one device it is Open. The caller
// closes every engine.
func OpenReplicas(dir string, opts Options, devices []int) ([]*Engine, error) {
	_, spec, _, err := resolveSpec(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", dir, err)
	}
	var b backends.Backend
	if err := tryCatch("backend "+spec, func() (err error) { b, err = newBackend(spec, compileCacheOf(opts)); return err }); err != nil {
		return nil, fmt.Errorf("model %s: %w", dir, err)
	}
	if devices == nil {
		for d := range b.NumDevices() {
			devices = append(devices, d)
		}
	}
	var out []*Engine
	for _, d := range devices {
		o := opts
		o.DeviceNum, o.shared = d, b
		e, err := Open(dir, o)
		if err != nil {
			for _, r := range out {
				r.Close()
			}
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// DeviceNum is the backend device e runs on (Options.DeviceNum).
func (e *Engine) DeviceNum() int { return e.opts.DeviceNum }

// Plus is the work of two engines together (replicas): counts and times
// add up; the last shapes are w's, the peaks the larger.
func (w Work) Plus(b Work) Work {
	s, g := w.Stats, w.Gen
	s.Compiles += b.Compiles
	s.CompileTime += b.CompileTime
	s.Batches += b.Batches
	s.Tokens += b.Tokens
	s.PaddedTokens += b.PaddedTokens
	s.TokensRequested += b.TokensRequested
	s.TokensComputed += b.TokensComputed
	s.ExecTime += b.ExecTime
	s.HeadCalls += b.HeadCalls
	s.HeadRows = max(s.HeadRows, b.HeadRows)
	s.PrefixComputed += b.PrefixComputed
	s.PrefixHits += b.PrefixHits
	s.PrefixPeakBytes = max(s.PrefixPeakBytes, b.PrefixPeakBytes)
	g.Prefills += b.Gen.Prefills
	g.PromptTokens += b.Gen.PromptTokens
	g.PrefillTokens += b.Gen.PrefillTokens
	g.PrefillTime += b.Gen.PrefillTime
	g.DecodeSteps += b.Gen.DecodeSteps
	g.DecodeTokens += b.Gen.DecodeTokens
	g.DecodeTime += b.Gen.DecodeTime
	if s.Backend == "" {
		s.Backend, s.BackendName = b.Backend, b.BackendName
	}
	return Work{Stats: s, Gen: g}
}
