package models

import (
	"fmt"
	"strings"

	"github.com/goeval/goeval/internal/errs"
)

// normalizeIntQuant settles GPTQ's and AWQ's spellings: gptqmodel's
// format for checkpoint_format, v1 ("gptq") when neither is given, AWQ's
// version in lower case.
func (q *Quantization) normalizeIntQuant() {
	switch q.Method {
	case "gptq":
		if q.CheckpointFormat == "" {
			q.CheckpointFormat = q.Format
		}
		if q.CheckpointFormat == "" {
			q.CheckpointFormat = "gptq"
		}
		q.CheckpointFormat = strings.ToLower(q.CheckpointFormat)
	case "awq":
		if q.Version == "" {
			q.Version = "gemm" // AwqConfig's default
		}
		q.Version = strings.ToLower(q.Version)
	}
}

// gptqSupported accepts GPTQ checkpoints of 4 or 8 bits in the v1 or v2
// packing; marlin, bitblas, exllama-repacked and other layouts are refused.
func (q *Quantization) gptqSupported(path string) error {
	switch {
	case q.IsMarlinFormat:
		return errs.BadInputf("%s: GPTQ is_marlin_format checkpoints are not supported (the gptq and gptq_v2 packings are)", path)
	case q.CheckpointFormat != "gptq" && q.CheckpointFormat != "gptq_v2":
		return errs.BadInputf("%s: GPTQ checkpoint_format %q is not supported (gptq or gptq_v2)", path, q.CheckpointFormat)
	case q.Bits != 4 && q.Bits != 8:
		return errs.BadInputf("%s: GPTQ bits %d is not supported (4 or 8)", path, q.Bits)
	case q.GroupSize != -1 && q.GroupSize <= 0:
		return errs.BadInputf("%s: GPTQ group_size %d is not a positive size or -1", path, q.GroupSize)
	}
	return nil
}

// awqSupported accepts AWQ checkpoints of 4 bits in the GEMM packing with
// zero points.
func (q *Quantization) awqSupported(path string) error {
	switch {
	case q.Version != "gemm":
		return errs.BadInputf("%s: AWQ version %q is not supported (gemm)", path, q.Version)
	case q.Bits != 4:
		return errs.BadInputf("%s: AWQ bits %d is not supported (4)", path, q.Bits)
	case q.ZeroPoint != nil && !*q.ZeroPoint:
		return errs.BadInputf("%s: AWQ without zero_point is not supported", path)
	case q.GroupSize <= 0:
		return errs.BadInputf("%s: AWQ group_size %d is not a positive size", path, q.GroupSize)
	}
	return nil
}

// intQuantString describes a GPTQ or AWQ quantization in one line.
func (q *Quantization) intQuantString() string {
	group := fmt.Sprintf("group %d", q.GroupSize)
	if q.GroupSize == -1 {
		group = "per channel"
	}
	if q.Method == "awq" {
		return fmt.Sprintf("AWQ %d-bit %s, %s", q.Bits, q.Version, group)
	}
	s := fmt.Sprintf("GPTQ %d-bit %s, %s", q.Bits, q.CheckpointFormat, group)
	if q.DescAct {
		s += ", desc_act"
	}
	if q.Sym != nil && !*q.Sym {
		s += ", asym"
	}
	return s
}
