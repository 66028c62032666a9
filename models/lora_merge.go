package models

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Targets lists, sorted, every base tensor the adapter changes (LoRA
// weights, their biases when lora_B has one, and replaced tensors). A weight
// loader checks that it saw each of them.
func (a *Adapter) Targets() []string {
	seen := map[string]bool{}
	for w, l := range a.Layers {
		seen[w] = true
		if l.BiasDelta != nil {
			seen[l.Module+".bias"] = true
		}
	}
	for n := range a.Replace {
		seen[n] = true
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// MergeInto returns base tensor name with the adapter applied: W + scale·B·A
// for a LoRA weight (accumulated in float64, rounded once to float32), b +
// scale·lora_B.bias for its bias, or the saved tensor for modules_to_save.
// Tensors the adapter does not touch come back as w itself. w is never
// written (it may alias a read-only mmap); a changed tensor is a new slice.
func (a *Adapter) MergeInto(name string, w []float32, shape []int) ([]float32, error) {
	if r, ok := a.Replace[name]; ok {
		if !slices.Equal(a.shapes[name], shape) {
			return nil, fmt.Errorf("adapter %s: %s has shape %v, base has %v", a.Dir, name, a.shapes[name], shape)
		}
		return slices.Clone(r), nil
	}
	if m, ok := strings.CutSuffix(name, ".bias"); ok {
		if l := a.Layers[m+".weight"]; l != nil && l.BiasDelta != nil {
			if len(w) != len(l.BiasDelta) {
				return nil, fmt.Errorf("adapter %s: %s has %d values, lora_B.bias %d", a.Dir, name, len(w), len(l.BiasDelta))
			}
			out := slices.Clone(w)
			for i, d := range l.BiasDelta {
				out[i] += d
			}
			return out, nil
		}
	}
	l := a.Layers[name]
	if l == nil {
		return w, nil
	}
	want := []int{l.Out, l.In}
	if l.Embedding {
		want = []int{l.In, l.Out}
	}
	if !slices.Equal(shape, want) || len(w) != l.In*l.Out {
		return nil, fmt.Errorf("adapter %s: %s has shape %v (%d values), LoRA update is %v", a.Dir, name, shape, len(w), want)
	}
	out := make([]float32, len(w))
	d := l.Delta()
	for i := range out {
		out[i] = float32(float64(w[i]) + d[i])
	}
	return out, nil
}

// Delta returns scale·B·A in float64, laid out like the base weight
// ([out, in] for a linear layer, [vocab, dim] = (B·A)ᵀ for an embedding).
func (l *LoRALayer) Delta() []float64 {
	r := l.Rank
	d := make([]float64, l.In*l.Out)
	for o := 0; o < l.Out; o++ {
		for i := 0; i < l.In; i++ {
			var s float64
			for k := 0; k < r; k++ {
				s += float64(l.B[o*r+k]) * float64(l.A[k*l.In+i])
			}
			if l.Embedding {
				d[i*l.Out+o] = l.Scale * s
			} else {
				d[o*l.In+i] = l.Scale * s
			}
		}
	}
	return d
}
