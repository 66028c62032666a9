package pyworker

import (
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
)

// decodeTag reads the tagged values of the JSON form (codec.go).
func decodeTag(tag string, v any) (any, error) {
	switch tag {
	case "$tuple", "$set":
		l, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("pyworker: %s holds %T, want a list", tag, v)
		}
		if tag == "$set" {
			return Set(l), nil
		}
		return Tuple(l), nil
	case "$dict":
		return decodeDict(v)
	case "$float":
		return decodeFloat(v)
	case "$int":
		s, ok := v.(string)
		if !ok || !isDecimal(s) {
			return nil, fmt.Errorf("pyworker: $int holds %v, want decimal digits", v)
		}
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, nil
		}
		return BigInt(s), nil
	case "$bytes":
		s, _ := v.(string)
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("pyworker: $bytes: %w", err)
		}
		return b, nil
	case "$np":
		l, ok := v.([]any)
		if !ok || len(l) != 2 {
			return nil, fmt.Errorf("pyworker: $np holds %v, want [dtype, value]", v)
		}
		dt, ok := l[0].(string)
		if !ok {
			return nil, fmt.Errorf("pyworker: $np dtype %v is not a string", l[0])
		}
		return NumPy{DType: dt, Value: l[1]}, nil
	case "$ndarray":
		return decodeNDArray(v)
	}
	return nil, fmt.Errorf("pyworker: unknown tag %s", tag)
}

// isDecimal reports whether s is an optional '-' and one or more ASCII
// digits.
func isDecimal(s string) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func decodeDict(v any) (any, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("pyworker: $dict holds %T, want a list of pairs", v)
	}
	out := make(Dict, len(l))
	for i, e := range l {
		p, ok := e.([]any)
		if !ok || len(p) != 2 {
			return nil, fmt.Errorf("pyworker: $dict item %d is not a [key, value] pair", i)
		}
		out[i] = Item{p[0], p[1]}
	}
	return out, nil
}

func decodeFloat(v any) (any, error) {
	switch v {
	case "nan":
		return math.NaN(), nil
	case "inf":
		return math.Inf(1), nil
	case "-inf":
		return math.Inf(-1), nil
	}
	return nil, fmt.Errorf("pyworker: $float holds %v, want nan, inf or -inf", v)
}

func decodeNDArray(v any) (any, error) {
	l, ok := v.([]any)
	if !ok || len(l) != 3 {
		return nil, fmt.Errorf("pyworker: $ndarray holds %v, want [dtype, shape, data]", v)
	}
	dt, ok := l[0].(string)
	shape, ok2 := l[1].([]any)
	if !ok || !ok2 {
		return nil, fmt.Errorf("pyworker: $ndarray dtype or shape malformed")
	}
	a := NDArray{DType: dt, Data: l[2], Shape: make([]int, len(shape))}
	for i, s := range shape {
		n, ok := s.(int64)
		if !ok || n < 0 {
			return nil, fmt.Errorf("pyworker: $ndarray shape %v", shape)
		}
		a.Shape[i] = int(n)
	}
	return a, nil
}
