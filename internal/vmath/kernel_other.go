//go:build !amd64

package vmath

// archKernel is the assembly kernel of this architecture: none.
var archKernel *kernel
