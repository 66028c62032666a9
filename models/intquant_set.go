package models

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/safetensors"
)

// intWeight is one GPTQ, AWQ or LLM.int8 weight of an intQuantSet: its
// module, the dense [out, in] and, for GPTQ and AWQ, its groups.
type intWeight struct {
	module         string
	out, in, group int
	info           safetensors.TensorInfo // the dense weight (DType "GPTQ4", "AWQ4", "INT8", ...)
}

// intQuantSet is a safetensors.Set with each GPTQ, AWQ or bitsandbytes
// 8-bit linear weight presented as the dense m.weight [out, in] it stands
// for, its packed tensors hidden: Float32 and BF16Into unpack it
// (ParseGroupQuant, ParseRowInt8) and dequantize. Shapes, dtypes and
// companions are all checked when the set is opened.
type intQuantSet struct {
	*safetensors.Set
	q       *Quantization
	weights map[string]*intWeight // by dense name m.weight
	hidden  map[string]bool
	// scratch holds the codes q4Weight parses (one weight at a time).
	scratch   groupScratch
	scratchMu sync.Mutex
}

// newIntQuantSet finds and checks every quantized weight of set.
func newIntQuantSet(set *safetensors.Set, q *Quantization) (*intQuantSet, error) {
	s := &intQuantSet{Set: set, q: q, weights: map[string]*intWeight{}, hidden: map[string]bool{}}
	marker := ".qweight"
	if q.Method == "bitsandbytes" {
		marker = ".SCB"
	}
	for _, name := range set.Names() {
		if !strings.HasSuffix(name, marker) {
			continue
		}
		m := strings.TrimSuffix(name, marker)
		var err error
		if q.Method == "bitsandbytes" {
			err = s.addInt8(m)
		} else {
			err = s.addGroup(m)
		}
		if err != nil {
			return nil, errs.BadInputf("%s: %s: %v", set.Source(), m, err)
		}
	}
	if len(s.weights) == 0 {
		return nil, errs.BadInputf("%s: config.json has a %s quantization_config but no tensor ends in %s; the checkpoint is not one", set.Source(), q, marker)
	}
	return s, nil
}

// addGroup checks GPTQ or AWQ module m's tensors and adds it.
func (s *intQuantSet) addGroup(m string) error {
	qw, _ := s.Set.Info(m + ".qweight")
	if qw.DType != "I32" {
		return fmt.Errorf("qweight is %s, want I32", qw.DType)
	}
	out, in, groups, comp, err := intShapes(s.q, qw.Shape)
	if err != nil {
		return err
	}
	if _, ok := s.Set.Info(m + ".g_idx"); ok && s.q.Method == "gptq" {
		comp[".g_idx"] = want{"I32", []int{in}}
	}
	length, err := s.checkCompanions(m, comp)
	if err != nil {
		return err
	}
	if s.q.Method == "gptq" { // g_idx values name existing groups
		if _, err := groupIndex(s.Set, s.q, m, in, groups); err != nil {
			return err
		}
	}
	s.hidden[m+".qweight"] = true
	s.add(m, out, in, groups, fmt.Sprintf("%s%d", strings.ToUpper(s.q.Method), s.q.Bits), qw, length+qw.Length)
	return nil
}

// addInt8 checks LLM.int8 module m's tensors and adds it.
func (s *intQuantSet) addInt8(m string) error {
	w, ok := s.Set.Info(m + ".weight")
	if !ok {
		return fmt.Errorf("has SCB but no weight")
	}
	if w.DType != "I8" || len(w.Shape) != 2 {
		return fmt.Errorf("weight is %s %v, want an I8 matrix", w.DType, w.Shape)
	}
	comp := map[string]want{".SCB": {"F32", []int{w.Shape[0]}}}
	if _, ok := s.Set.Info(m + ".weight_format"); ok {
		comp[".weight_format"] = want{"U8", []int{}}
	}
	length, err := s.checkCompanions(m, comp)
	if err != nil {
		return err
	}
	if _, ok := comp[".weight_format"]; ok {
		if b, _ := s.Set.Bytes(m + ".weight_format"); b[0] != 0 {
			return fmt.Errorf("weight_format %d is not bitsandbytes' row format (0)", b[0])
		}
	}
	s.add(m, w.Shape[0], w.Shape[1], 0, "INT8", w, length+w.Length)
	return nil
}

// checkCompanions checks that each companion m+suffix exists with a wanted
// dtype and shape, hides it and returns their bytes.
func (s *intQuantSet) checkCompanions(m string, comp map[string]want) (int64, error) {
	sufs := make([]string, 0, len(comp))
	for suf := range comp {
		sufs = append(sufs, suf)
	}
	sort.Strings(sufs)
	var length int64
	for _, suf := range sufs {
		info, ok := s.Set.Info(m + suf)
		if !ok {
			return 0, fmt.Errorf("missing tensor %s%s", m, suf)
		}
		w := comp[suf]
		if !strings.Contains(w.dtypes, info.DType) || fmt.Sprint(info.Shape) != fmt.Sprint(w.shape) {
			return 0, fmt.Errorf("tensor %s%s is %s %v, want %v of %s", m, suf, info.DType, info.Shape, w.shape, w.dtypes)
		}
		s.hidden[m+suf] = true
		length += info.Length
	}
	return length, nil
}

// add records module m's dense weight.
func (s *intQuantSet) add(m string, out, in, groups int, dtype string, packed safetensors.TensorInfo, length int64) {
	name := m + ".weight"
	s.weights[name] = &intWeight{module: m, out: out, in: in, group: groups,
		info: safetensors.TensorInfo{Name: name, DType: dtype, Shape: []int{out, in}, File: packed.File, Offset: packed.Offset, Length: length}}
}
