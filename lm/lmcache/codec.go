package lmcache

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/goeval/goeval/lm"
)

// Request kinds, the first byte of a key's preimage and of a stored value.
const (
	kindLoglikelihood byte = 'L'
	kindRolling       byte = 'R'
	kindGenerate      byte = 'G'
)

// keyVersion heads every key's preimage; change it when the encoding of
// requests or results changes, so that old entries are never read.
const keyVersion = "goeval-lmcache-v1\x00"

// enc builds a canonical, unambiguous byte string: every variable-length
// field is length-prefixed, so no two different requests encode alike.
type enc struct{ b []byte }

func (e *enc) uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) int(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) f64(v float64) { e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(v)) }
func (e *enc) f32(v float32) { e.b = binary.LittleEndian.AppendUint32(e.b, math.Float32bits(v)) }
func (e *enc) str(s string)  { e.uint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *enc) boolean(v bool) {
	var b byte
	if v {
		b = 1
	}
	e.b = append(e.b, b)
}

func (e *enc) ids(ids []int32) {
	e.uint(uint64(len(ids)))
	for _, id := range ids {
		e.int(int64(id))
	}
}

func (e *enc) strs(ss []string) {
	e.uint(uint64(len(ss)))
	for _, s := range ss {
		e.str(s)
	}
}

// key hashes a kind and its encoded request fields.
func key(kind byte, fields func(*enc)) []byte {
	e := &enc{b: append([]byte(keyVersion), kind)}
	fields(e)
	sum := sha256.Sum256(e.b)
	return sum[:]
}

// llKey is the key of a loglikelihood request (every field).
func llKey(r lm.LoglikelihoodRequest) []byte {
	return key(kindLoglikelihood, func(e *enc) {
		e.str(r.Context)
		e.str(r.Continuation)
		e.ids(r.ContextIDs)
		e.ids(r.ContinuationIDs)
	})
}

// rollingKey is the key of a rolling request.
func rollingKey(r lm.RollingRequest) []byte {
	return key(kindRolling, func(e *enc) {
		e.str(r.Text)
		e.ids(r.IDs)
	})
}

// genKey is the key of a generate request: context, stop strings, length
// and every sampling setting.
func genKey(r lm.GenerateRequest) []byte {
	return key(kindGenerate, func(e *enc) {
		e.str(r.Context)
		e.ids(r.ContextIDs)
		e.strs(r.Until)
		e.int(int64(r.MaxTokens))
		e.f32(r.Temperature)
		e.f32(r.TopP)
		e.int(int64(r.TopK))
		e.uint(r.Seed)
	})
}

// Values: the kind byte, then the result's fields. Floats are stored as
// their IEEE bits, so every value (NaN and ±Inf included) round-trips.

func encodeLL(r lm.LoglikelihoodResult) []byte {
	e := &enc{b: []byte{kindLoglikelihood}}
	e.f64(r.LogProb)
	e.boolean(r.IsGreedy)
	e.int(int64(r.NumTokens))
	return e.b
}

func encodeRolling(r lm.RollingResult) []byte {
	e := &enc{b: []byte{kindRolling}}
	e.f64(r.LogProb)
	e.int(int64(r.NumTokens))
	return e.b
}

func encodeGen(r lm.GenerateResult) []byte {
	e := &enc{b: []byte{kindGenerate}}
	e.str(r.Text)
	e.boolean(r.IDs == nil) // nil and empty ids round-trip as they were
	e.ids(r.IDs)
	e.str(r.StopReason)
	return e.b
}

// dec reads what enc wrote; the first error sticks.
type dec struct {
	b   []byte
	err error
}

var errCorrupt = errors.New("corrupt cache entry")

func (d *dec) fail() { d.err, d.b = errCorrupt, nil }

func (d *dec) uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) int() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) f64() float64 {
	if len(d.b) < 8 {
		d.fail()
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	return v
}

func (d *dec) byte1() byte {
	if len(d.b) < 1 {
		d.fail()
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *dec) str() string {
	n := d.uint()
	if uint64(len(d.b)) < n {
		d.fail()
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *dec) ids() []int32 {
	n := d.uint()
	if n > uint64(len(d.b)) { // each id takes at least one byte
		d.fail()
		return nil
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(d.int())
	}
	return out
}

// start checks the kind byte; done checks that nothing is left over.
func (d *dec) start(kind byte) {
	if d.byte1() != kind {
		d.fail()
	}
}

func (d *dec) done() error {
	if d.err == nil && len(d.b) != 0 {
		d.fail()
	}
	if d.err != nil {
		return fmt.Errorf("%w (delete the cache folder's file to rebuild it)", d.err)
	}
	return nil
}

func decodeLL(b []byte) (lm.LoglikelihoodResult, error) {
	d := &dec{b: b}
	d.start(kindLoglikelihood)
	r := lm.LoglikelihoodResult{LogProb: d.f64(), IsGreedy: d.byte1() == 1, NumTokens: int(d.int())}
	return r, d.done()
}

func decodeRolling(b []byte) (lm.RollingResult, error) {
	d := &dec{b: b}
	d.start(kindRolling)
	r := lm.RollingResult{LogProb: d.f64(), NumTokens: int(d.int())}
	return r, d.done()
}

func decodeGen(b []byte) (lm.GenerateResult, error) {
	d := &dec{b: b}
	d.start(kindGenerate)
	r := lm.GenerateResult{Text: d.str()}
	nilIDs := d.byte1() == 1
	r.IDs = d.ids()
	if nilIDs {
		r.IDs = nil
	}
	r.StopReason = d.str()
	return r, d.done()
}
