//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// auditArch is the architecture the filter accepts.
const auditArch = unix.AUDIT_ARCH_AARCH64

// archPrologue: arm64 has one syscall ABI.
var archPrologue []bpf

// archDenied: arm64 has no calls of its own to deny.
var archDenied []uint32
