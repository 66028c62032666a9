package models

import (
	"sort"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/safetensors"
)

// Names lists the tensors with each quantized weight once, as m.weight,
// its packed tensors left out.
func (s *intQuantSet) Names() []string {
	out := make([]string, 0, len(s.weights))
	for n := range s.weights {
		out = append(out, n)
	}
	for _, n := range s.Set.Names() {
		if _, ok := s.weights[n]; !ok && !s.hidden[n] {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Info describes tensor name; a quantized weight by its dense shape.
func (s *intQuantSet) Info(name string) (safetensors.TensorInfo, bool) {
	if w, ok := s.weights[name]; ok {
		return w.info, true
	}
	if s.hidden[name] {
		return safetensors.TensorInfo{}, false
	}
	return s.Set.Info(name)
}

// Float32 returns tensor name as float32; a quantized weight dequantized
// into a new slice.
func (s *intQuantSet) Float32(name string) ([]float32, error) {
	w, ok := s.weights[name]
	if !ok {
		return s.Set.Float32(name)
	}
	out := make([]float32, w.out*w.in)
	if err := s.dequantize(w, out, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// BF16Into writes tensor name as bfloat16 bits; a quantized weight is
// dequantized row by row and rounded, with no float32 copy.
func (s *intQuantSet) BF16Into(name string, dst []uint16, done func(raw []byte)) error {
	w, ok := s.weights[name]
	if !ok {
		return s.Set.BF16Into(name, dst, done)
	}
	if len(dst) != w.out*w.in {
		return errs.BadInputf("%s: tensor %q holds %d values, %d expected", w.info.File, name, w.out*w.in, len(dst))
	}
	return s.dequantize(w, nil, dst)
}

// dequantize parses w and writes it into f32 or bf16.
func (s *intQuantSet) dequantize(w *intWeight, f32 []float32, bf16 []uint16) error {
	if s.q.Method == "bitsandbytes" {
		r, err := s.RowInt8(w.info.Name)
		if err != nil {
			return err
		}
		r.Dequantize(f32, bf16)
		return nil
	}
	g, err := s.GroupQuant(w.info.Name)
	if err != nil {
		return err
	}
	g.Dequantize(f32, bf16)
	return nil
}

// GroupQuant is GPTQ or AWQ weight name (m.weight) as parsed values.
func (s *intQuantSet) GroupQuant(name string) (*GroupQuant, error) {
	w, ok := s.weights[name]
	if !ok || s.q.Method == "bitsandbytes" {
		return nil, errs.BadInputf("%s: %s is not a GPTQ or AWQ weight", s.Source(), name)
	}
	return s.groupQuant(w, nil)
}

// groupQuant parses w, its codes in sc's storage (nil: its own).
func (s *intQuantSet) groupQuant(w *intWeight, sc *groupScratch) (*GroupQuant, error) {
	g, err := parseGroupQuant(s.Set, s.q, w.module, w.out, w.in, w.group, sc)
	if err != nil {
		return nil, errs.BadInputf("%s: %v", s.Source(), err)
	}
	return g, nil
}

// RowInt8 is bitsandbytes 8-bit weight name (m.weight) as parsed values.
func (s *intQuantSet) RowInt8(name string) (*RowInt8, error) {
	w, ok := s.weights[name]
	if !ok || s.q.Method != "bitsandbytes" {
		return nil, errs.BadInputf("%s: %s is not a bitsandbytes 8-bit weight", s.Source(), name)
	}
	raw, err := s.Set.Bytes(name)
	if err != nil {
		return nil, err
	}
	r := &RowInt8{Out: w.out, In: w.in, Codes: make([]int8, len(raw))}
	for i, b := range raw {
		r.Codes[i] = int8(b)
	}
	if r.SCB, err = s.Set.Float32(w.module + ".SCB"); err != nil {
		return nil, err
	}
	return r, nil
}

// Quantized lists the quantized weights, sorted.
func (s *intQuantSet) Quantized() []string {
	out := make([]string, 0, len(s.weights))
	for n := range s.weights {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
