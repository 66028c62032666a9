//go:build linux && (amd64 || arm64)

package sandbox

import (
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// The seccomp filter the harness installs last, before the program runs:
// a classic BPF program over struct seccomp_data (nr at offset 0, arch at
// 4, argument i's low 32 bits at 16+8i). A denied call fails with EPERM
// (ENOSYS for clone3, so that the C library falls back to clone, whose
// flags the filter can read); a call from another architecture's ABI
// kills the process.

// bpf is one struct sock_filter.
type bpf struct {
	code   uint16
	jt, jf uint8
	k      uint32
}

const (
	ldAbs  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	jeq    = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	jset   = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	retK   = unix.BPF_RET | unix.BPF_K
	allow  = unix.SECCOMP_RET_ALLOW
	eperm  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	enosys = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)

	offNr, offArch, offArg0 = 0, 4, 16
)

// cloneNamespaces are clone's flags that make a namespace.
const cloneNamespaces = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET

// denied are the calls no program needs that could reach outside the
// sandbox or the kernel's privileged interfaces.
var denied = append([]uint32{
	unix.SYS_SOCKET, unix.SYS_CONNECT, unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV,
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_CHROOT, unix.SYS_SWAPON, unix.SYS_SWAPOFF,
	unix.SYS_REBOOT, unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD, unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE,
	unix.SYS_DELETE_MODULE, unix.SYS_ACCT, unix.SYS_SETTIMEOFDAY, unix.SYS_CLOCK_SETTIME, unix.SYS_CLOCK_ADJTIME,
	unix.SYS_ADJTIMEX, unix.SYS_SETHOSTNAME, unix.SYS_SETDOMAINNAME, unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN,
	unix.SYS_USERFAULTFD, unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY, unix.SYS_UNSHARE, unix.SYS_SETNS,
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER, unix.SYS_OPEN_BY_HANDLE_AT,
	unix.SYS_NAME_TO_HANDLE_AT, unix.SYS_FSOPEN, unix.SYS_FSMOUNT, unix.SYS_FSPICK, unix.SYS_OPEN_TREE,
	unix.SYS_MOVE_MOUNT, unix.SYS_MOUNT_SETATTR, unix.SYS_FANOTIFY_INIT, unix.SYS_QUOTACTL, unix.SYS_SYSLOG,
	unix.SYS_VHANGUP, unix.SYS_LOOKUP_DCOOKIE, unix.SYS_SETGROUPS,
}, archDenied...)

// deniedOutsideNamespaces are also denied when the program shares the
// machine's pid namespace: signals and pidfds for other processes, and
// leaving its process group (which the parent kills as a whole).
var deniedOutsideNamespaces = []uint32{unix.SYS_TKILL, unix.SYS_PIDFD_OPEN, unix.SYS_PIDFD_SEND_SIGNAL,
	unix.SYS_PIDFD_GETFD, unix.SYS_SETSID, unix.SYS_SETPGID}

// buildFilter is the filter for a program; shared (fallback mode) adds
// the rules for a process that shares the machine's pid namespace, whose
// own pid is pid.
func buildFilter(shared bool, pid int) []byte {
	prog := []bpf{
		{ldAbs, 0, 0, offArch},
		{jeq, 1, 0, auditArch},
		{retK, 0, 0, unix.SECCOMP_RET_KILL_PROCESS},
		{ldAbs, 0, 0, offNr},
	}
	prog = append(prog, archPrologue...)
	block := func(nr uint32, body ...bpf) {
		prog = append(prog, bpf{jeq, 0, uint8(len(body)), nr})
		prog = append(prog, body...)
	}
	for _, nr := range denied {
		block(nr, bpf{retK, 0, 0, eperm})
	}
	block(unix.SYS_CLONE3, bpf{retK, 0, 0, enosys})
	block(unix.SYS_CLONE, bpf{ldAbs, 0, 0, offArg0}, bpf{jset, 0, 1, cloneNamespaces},
		bpf{retK, 0, 0, eperm}, bpf{retK, 0, 0, allow})
	// prlimit64 on another process (0 is the caller) could change goeval's limits.
	block(unix.SYS_PRLIMIT64, bpf{ldAbs, 0, 0, offArg0}, bpf{jeq, 0, 1, 0},
		bpf{retK, 0, 0, allow}, bpf{retK, 0, 0, eperm})
	if shared {
		for _, nr := range deniedOutsideNamespaces {
			block(nr, bpf{retK, 0, 0, eperm})
		}
		self := uint32(pid)
		for _, nr := range []uint32{unix.SYS_KILL, unix.SYS_RT_SIGQUEUEINFO} { // itself, its group (0, -pid)
			block(nr, bpf{ldAbs, 0, 0, offArg0}, bpf{jeq, 3, 0, self}, bpf{jeq, 2, 0, 0}, bpf{jeq, 1, 0, -self},
				bpf{retK, 0, 0, eperm}, bpf{retK, 0, 0, allow})
		}
		for _, nr := range []uint32{unix.SYS_TGKILL, unix.SYS_RT_TGSIGQUEUEINFO} { // its own threads
			block(nr, bpf{ldAbs, 0, 0, offArg0}, bpf{jeq, 1, 0, self}, bpf{retK, 0, 0, eperm}, bpf{retK, 0, 0, allow})
		}
	}
	prog = append(prog, bpf{retK, 0, 0, allow})
	out := make([]byte, 0, 8*len(prog))
	for _, in := range prog {
		out = binary.LittleEndian.AppendUint16(out, in.code)
		out = append(out, in.jt, in.jf)
		out = binary.LittleEndian.AppendUint32(out, in.k)
	}
	return out
}
