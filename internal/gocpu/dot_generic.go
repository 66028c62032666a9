package gocpu

// runGeneric is DotGeneral for dtypes other than float32: a plain loop,
// each output summed in k order (goeval's graphs multiply only float32).
func (p *dotPlan) runGeneric(x *runCtx, in []*Buffer) (*Buffer, error) {
	switch in[0].flat.(type) {
	case []float64:
		return dotGeneric[float64](p, x, in)
	case []int32:
		return dotGeneric[int32](p, x, in)
	case []int64:
		return dotGeneric[int64](p, x, in)
	}
	return nil, errUnsupported("DotGeneral", p.out.DType.String())
}

func dotGeneric[T number](p *dotPlan, x *runCtx, in []*Buffer) (*Buffer, error) {
	a, relA := normalized[T](x, in[0], p.lhsShape, p.lhsPerm)
	defer relA()
	bf, relB := normalized[T](x, in[1], p.rhsShape, p.rhsPerm)
	defer relB()
	o := x.alloc(p.out, false)
	c := o.flat.([]T)
	mk, kn, mn := p.m*p.k, p.k*p.n, p.m*p.n
	for bi := 0; bi < p.batch; bi++ {
		for i := 0; i < p.m; i++ {
			for j := 0; j < p.n; j++ {
				var s T
				for k := 0; k < p.k; k++ {
					bv := bf[bi*kn+k*p.n+j]
					if p.transB {
						bv = bf[bi*kn+j*p.k+k]
					}
					s += a[bi*mk+i*p.k+k] * bv
				}
				c[bi*mn+i*p.n+j] = s
			}
		}
	}
	return o, nil
}
