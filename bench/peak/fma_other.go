//go:build !amd64

package peak

// kernel is the scalar loop on CPUs without an assembly kernel here.
func kernel() (name string, flopsPerIter float64, loop func(n int64)) { return scalarKernel() }

// Features is empty where goeval has no feature probe.
func Features() []string { return nil }
