package mathverify

// Matrix arithmetic for comparisons (sympy's doit() on MatAdd and MatMul):
// sums, scalar multiples and products of explicit matrices.

func transpose(m *Expr) *Expr {
	t := &Expr{K: KMatrix, Rows: m.Cols, Cols: m.Rows, Args: make([]*Expr, len(m.Args))}
	for i := 0; i < m.Rows; i++ {
		for j := 0; j < m.Cols; j++ {
			t.Args[j*m.Rows+i] = m.Args[i*m.Cols+j]
		}
	}
	return t
}

// hasMatrix reports a matrix inside an arithmetic expression.
func hasMatrix(e *Expr) bool {
	switch e.K {
	case KMatrix:
		return true
	case KAdd, KMul, KPow:
		for _, a := range e.Args {
			if hasMatrix(a) {
				return true
			}
		}
	}
	return false
}

// matrixValue evaluates an expression of matrices to one explicit matrix.
func matrixValue(e *Expr) (*Expr, bool) {
	switch e.K {
	case KMatrix:
		return e, true
	case KAdd:
		acc, ok := matrixValue(e.Args[0])
		if !ok {
			return nil, false
		}
		for _, a := range e.Args[1:] {
			m, ok := matrixValue(a)
			if !ok || m.Rows != acc.Rows || m.Cols != acc.Cols {
				return nil, false
			}
			sum := &Expr{K: KMatrix, Rows: m.Rows, Cols: m.Cols, Args: make([]*Expr, len(m.Args))}
			for i := range m.Args {
				sum.Args[i] = nodeE(KAdd, acc.Args[i], m.Args[i])
			}
			acc = sum
		}
		return acc, true
	case KMul:
		var acc *Expr
		var scalars []*Expr
		for _, a := range e.Args {
			if !hasMatrix(a) {
				scalars = append(scalars, a)
				continue
			}
			m, ok := matrixValue(a)
			if !ok {
				return nil, false
			}
			if acc == nil {
				acc = m
			} else if acc, ok = matMul(acc, m); !ok {
				return nil, false
			}
		}
		if acc == nil {
			return nil, false
		}
		out := &Expr{K: KMatrix, Rows: acc.Rows, Cols: acc.Cols, Args: make([]*Expr, len(acc.Args))}
		for i, c := range acc.Args {
			out.Args[i] = nodeE(KMul, append(append([]*Expr(nil), scalars...), c)...)
		}
		return out, true
	}
	return nil, false
}

func matMul(a, b *Expr) (*Expr, bool) {
	if a.Cols != b.Rows {
		return nil, false
	}
	out := &Expr{K: KMatrix, Rows: a.Rows, Cols: b.Cols}
	for i := 0; i < a.Rows; i++ {
		for j := 0; j < b.Cols; j++ {
			var terms []*Expr
			for k := 0; k < a.Cols; k++ {
				terms = append(terms, nodeE(KMul, a.Args[i*a.Cols+k], b.Args[k*b.Cols+j]))
			}
			out.Args = append(out.Args, nodeE(KAdd, terms...))
		}
	}
	return out, true
}
