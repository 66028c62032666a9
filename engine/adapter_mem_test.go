package engine

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goeval/goeval/models/safetensors"
	"github.com/goeval/goeval/synth"
)

// TestAdapterMemory measures peak RSS (VmHWM) of two child processes
// scoring the same requests on a synthetic llama (hidden 512, 8 layers,
// vocab 32000: 58M parameters, 232 MB in f32): the base alone, and the base
// plus two rank-16 all-linear adapters in separate mode, scoring base, A and
// B from one copy of the weights. It requires ≤ 1.2× the base's peak.
// Opt-in (GOEVAL_MEM_TEST=1): it writes ~250 MB and takes a minute.
func TestAdapterMemory(t *testing.T) {
	if os.Getenv("GOEVAL_MEM_TEST") == "" {
		t.Skip("set GOEVAL_MEM_TEST=1 to measure adapter memory (slow)")
	}
	dir := t.TempDir()
	base := filepath.Join(dir, "base")
	if err := synth.Model(synth.ModelOptions{Arch: "llama", Hidden: 512, Layers: 8, Heads: 8, KVHeads: 4,
		Intermediate: 1408, Vocab: 32000, Seed: 1, BOS: 1, EOS: 2, Out: base}); err != nil {
		t.Fatal(err)
	}
	set, err := safetensors.Open(base)
	if err != nil {
		t.Fatal(err)
	}
	a, b := writeMemAdapter(t, set, dir, "a", 1), writeMemAdapter(t, set, dir, "b", 2)
	set.Close()
	hwm := func(mode string) int {
		return childHWM(t, "TestAdapterMemoryChild", "GOEVAL_MEM_CHILD="+mode, "GOEVAL_MEM_BASE="+base, "GOEVAL_MEM_ADAPTERS="+a+","+b)
	}
	baseKB, sepKB := hwm("base"), hwm("separate2")
	ratio := float64(sepKB) / float64(baseKB)
	t.Logf("VmHWM: base alone %d MB, base + 2 adapters (separate, 3 evaluations) %d MB: ×%.3f", baseKB>>10, sepKB>>10, ratio)
	if ratio > 1.2 {
		t.Errorf("base + 2 adapters uses ×%.2f the memory of the base alone, want ≤ 1.2", ratio)
	}
}

// TestAdapterMemoryChild is the child process of TestAdapterMemory.
func TestAdapterMemoryChild(t *testing.T) {
	mode := os.Getenv("GOEVAL_MEM_CHILD")
	if mode == "" {
		t.Skip("child of TestAdapterMemory")
	}
	o := Options{BatchSize: 4}
	if mode == "separate2" {
		o.Adapters, o.AdapterMode = strings.Split(os.Getenv("GOEVAL_MEM_ADAPTERS"), ","), AdapterSeparate
	}
	e, err := Open(os.Getenv("GOEVAL_MEM_BASE"), o)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	var ctxs, conts [][]int32
	for range 8 {
		c := make([]int32, 64)
		for i := range c {
			c[i] = int32(3 + rng.IntN(31000))
		}
		ctxs, conts = append(ctxs, c[:60]), append(conts, c[60:])
	}
	views := []*Engine{e}
	for i := -1; i < len(o.Adapters) && mode == "separate2"; i++ {
		if i == 0 {
			continue // e itself applies adapter 0
		}
		v, err := e.WithAdapter(i)
		if err != nil {
			t.Fatal(err)
		}
		defer v.Close()
		views = append(views, v)
	}
	for _, v := range views {
		if _, err := v.ScoreIDs(context.Background(), ctxs, conts, false); err != nil {
			t.Fatal(err)
		}
	}
	fmt.Printf("VmHWM_kB=%d\n", vmHWM(t))
}

// childHWM runs the test named child in a child process of this test
// binary with env added, and returns the VmHWM_kB=N it prints (its peak
// RSS in kB).
func childHWM(t *testing.T, child string, env ...string) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+child+"$", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child %s %v: %v\n%s", child, env, err, out)
	}
	_, rest, ok := strings.Cut(string(out), "VmHWM_kB=")
	kb, _ := strconv.Atoi(strings.Fields(rest + " ")[0])
	if !ok || kb == 0 {
		t.Fatalf("child %s %v printed no VmHWM:\n%s", child, env, out)
	}
	return kb
}

// vmHWM reads this process's peak resident set size in kB.
func vmHWM(t *testing.T) int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.Fields(rest)[0])
			return n
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}

// writeMemAdapter writes a random rank-16 all-linear PEFT adapter for set.
func writeMemAdapter(t *testing.T, set *safetensors.Set, dir, name string, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 9))
	f32 := func(n int) []byte {
		b := make([]byte, 4*n)
		for i := 0; i < n; i++ {
			u := math.Float32bits(float32(0.05 * rng.NormFloat64()))
			b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
		}
		return b
	}
	var ts []safetensors.Tensor
	for _, n := range set.Names() {
		info, _ := set.Info(n)
		if len(info.Shape) != 2 || !strings.Contains(n, ".layers.") {
			continue
		}
		m := "base_model.model." + strings.TrimSuffix(n, ".weight")
		ts = append(ts, safetensors.Tensor{Name: m + ".lora_A.weight", DType: "F32", Shape: []int{16, info.Shape[1]}, Data: f32(16 * info.Shape[1])},
			safetensors.Tensor{Name: m + ".lora_B.weight", DType: "F32", Shape: []int{info.Shape[0], 16}, Data: f32(16 * info.Shape[0])})
	}
	out := filepath.Join(dir, name)
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := `{"peft_type":"LORA","r":16,"lora_alpha":32,"target_modules":"all-linear","bias":"none"}`
	if err := os.WriteFile(filepath.Join(out, "adapter_config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := safetensors.Write(filepath.Join(out, "adapter_model.safetensors"), ts, nil); err != nil {
		t.Fatal(err)
	}
	return out
}
