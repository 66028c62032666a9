package gocpu

import "github.com/gomlx/gomlx/backends"

// arith32Row returns loops for float32 +, −, ×, ÷ written out per operand
// pattern: a generic row calls its op through a function value per
// element, which costs more than the arithmetic.
func arith32Row(op backends.OpType) rowFunc[float32, float32] {
	switch op {
	case backends.OpTypeAdd:
		return add32
	case backends.OpTypeSub:
		return sub32
	case backends.OpTypeMul:
		return mul32
	case backends.OpTypeDiv:
		return div32
	}
	return nil
}

func add32(d, a, c []float32, si, sj int) {
	switch {
	case si == 1 && sj == 1:
		a, c = a[:len(d)], c[:len(d)]
		for k := range d {
			d[k] = a[k] + c[k]
		}
	case si == 1:
		a, v := a[:len(d)], c[0]
		for k := range d {
			d[k] = a[k] + v
		}
	case sj == 1:
		v, c := a[0], c[:len(d)]
		for k := range d {
			d[k] = v + c[k]
		}
	default:
		fill32(d, a[0]+c[0])
	}
}

func sub32(d, a, c []float32, si, sj int) {
	switch {
	case si == 1 && sj == 1:
		a, c = a[:len(d)], c[:len(d)]
		for k := range d {
			d[k] = a[k] - c[k]
		}
	case si == 1:
		a, v := a[:len(d)], c[0]
		for k := range d {
			d[k] = a[k] - v
		}
	case sj == 1:
		v, c := a[0], c[:len(d)]
		for k := range d {
			d[k] = v - c[k]
		}
	default:
		fill32(d, a[0]-c[0])
	}
}

func mul32(d, a, c []float32, si, sj int) {
	switch {
	case si == 1 && sj == 1:
		a, c = a[:len(d)], c[:len(d)]
		for k := range d {
			d[k] = a[k] * c[k]
		}
	case si == 1:
		a, v := a[:len(d)], c[0]
		for k := range d {
			d[k] = a[k] * v
		}
	case sj == 1:
		v, c := a[0], c[:len(d)]
		for k := range d {
			d[k] = v * c[k]
		}
	default:
		fill32(d, a[0]*c[0])
	}
}

func div32(d, a, c []float32, si, sj int) {
	switch {
	case si == 1 && sj == 1:
		a, c = a[:len(d)], c[:len(d)]
		for k := range d {
			d[k] = a[k] / c[k]
		}
	case si == 1:
		a, v := a[:len(d)], c[0]
		for k := range d {
			d[k] = a[k] / v
		}
	case sj == 1:
		v, c := a[0], c[:len(d)]
		for k := range d {
			d[k] = v / c[k]
		}
	default:
		fill32(d, a[0]/c[0])
	}
}

func fill32(d []float32, v float32) {
	for k := range d {
		d[k] = v
	}
}
