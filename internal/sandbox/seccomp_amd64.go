//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// auditArch is the architecture the filter accepts.
const auditArch = unix.AUDIT_ARCH_X86_64

// archPrologue refuses the x32 ABI's calls (nr with bit 30 set), whose
// numbers the rules below do not cover.
var archPrologue = []bpf{{jset, 0, 1, 0x40000000}, {retK, 0, 0, eperm}}

// archDenied are amd64's own calls to deny: port I/O and uselib.
var archDenied = []uint32{unix.SYS_IOPL, unix.SYS_IOPERM, unix.SYS_USELIB}
