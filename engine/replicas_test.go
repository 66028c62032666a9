package engine

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/lm/lmsplit"
	"github.com/goeval/goeval/synth"
)

// TestReplicas: on the pure-Go backend (one device) OpenReplicas opens
// one engine and refuses device 1. On GOEVAL_TEST_DEVICE=xla-cpu with
// XLA_FLAGS=--xla_force_host_platform_device_count=2 (or more), the replica on
// device 1 runs the programs of device 0 and gives the same bits, and
// requests dealt to both (lmsplit) give one device's results within XLA's
// shape noise (other batches make other shapes there).
func TestReplicas(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	if err := synth.Model(synth.ModelOptions{Arch: "llama", Hidden: 32, Layers: 2, Heads: 4, KVHeads: 2, Intermediate: 64,
		Vocab: 256, MaxPositions: 256, BOS: 1, EOS: 2, Seed: 1, Out: dir}); err != nil {
		t.Fatal(err)
	}
	device := os.Getenv("GOEVAL_TEST_DEVICE")
	if device == "" {
		engs, err := OpenReplicas(dir, Options{}, nil)
		if err != nil || len(engs) != 1 {
			t.Fatalf("pure-Go backend: %d replicas, %v; want 1", len(engs), err)
		}
		engs[0].Close()
		if _, err := OpenReplicas(dir, Options{}, []int{0, 1}); !errs.IsBadInput(err) || !strings.Contains(err.Error(), "device 1: the ") {
			t.Fatalf("device 1 of the pure-Go backend: %v", err)
		}
		t.Skip("two devices: GOEVAL_TEST_DEVICE=xla-cpu")
	}
	engs, err := OpenReplicas(dir, Options{Device: device}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range engs {
		defer e.Close()
	}
	if len(engs) < 2 {
		t.Skipf("%s has one device: set XLA_FLAGS=--xla_force_host_platform_device_count=2", device)
	}
	view, ok := engs[1].backend.(*deviceView)
	if !ok {
		t.Fatalf("replica 1's backend is a %T, not a view of device 1", engs[1].backend)
	}
	for v := range engs[1].ctx.IterVariables() { // its weights live on device 1
		val, err := v.Value()
		if err != nil {
			t.Fatal(err)
		}
		buf, err := val.Buffer(view, 0)
		if err != nil {
			t.Fatal(err)
		}
		if d, err := view.Backend.BufferDeviceNum(buf); err != nil || d != 1 {
			t.Fatalf("weight %s of replica 1 is on device %d (%v)", v.ScopeAndName(), d, err)
		}
	}
	ctx := context.Background()
	reqs := mcWorkload(5, 24, 40, 6, 256)
	want, err := engs[0].Loglikelihood(ctx, reqs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := engs[1].Loglikelihood(ctx, reqs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("the replica on device 1 scores otherwise than device 0's")
	}
	gen := []lm.GenerateRequest{{ContextIDs: reqs[0].ContextIDs, MaxTokens: 6}, {ContextIDs: reqs[5].ContextIDs, MaxTokens: 4}}
	g0, err0 := engs[0].GenerateUntil(ctx, gen)
	g1, err1 := engs[1].GenerateUntil(ctx, gen)
	if err0 != nil || err1 != nil || !reflect.DeepEqual(g0, g1) {
		t.Fatalf("generation on device 1 differs from device 0's (%v, %v)", err0, err1)
	}
	copies := make([]lm.LM, len(engs))
	for i, e := range engs {
		copies[i] = e
	}
	dealt, err := lmsplit.New(copies, nil).Loglikelihood(ctx, reqs)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i := range want {
		worst = max(worst, math.Abs(dealt[i].LogProb-want[i].LogProb)/float64(want[i].NumTokens))
	}
	t.Logf("%d replicas: largest per-token difference from one device %.3g", len(engs), worst)
	if worst > 1e-5 {
		t.Errorf("dealt to %d replicas, log-probs differ from one device's by up to %.3g per token", len(engs), worst)
	}
}
