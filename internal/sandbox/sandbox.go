// Package sandbox runs generated Python programs, one process each, the way
// lm-eval's code_eval metric judges them — a program passes when it runs to
// the end within the time limit — but confined, so that a program cannot
// reach the network, the files or the processes of the machine that runs
// the evaluation.
//
// On Linux each program runs in a process of its own:
//
//   - namespace mode (when the kernel lets this process create a user
//     namespace): new user, pid, network, mount, IPC and UTS namespaces; the
//     program is uid 0 of its namespace, mapped to nobody (65534) when goeval
//     runs as root, else to goeval's own uid; every mount read-only, a fresh
//     size-limited tmpfs at /tmp (its working folder and only writable
//     place), its own /proc; no network interface but a down loopback; killing
//     the process kills every process it started;
//   - fallback mode (containers that forbid user namespaces): the program
//     runs as nobody when goeval is root (else as goeval's uid) in a process
//     group of its own, in a fresh temporary folder;
//   - in both: a scrubbed environment (PATH, HOME, LANG: nothing of
//     goeval's), rlimits (CPU seconds, address space, processes, file size,
//     open files, no core files), Landlock where the kernel has it (reads
//     only beneath the system and Python folders, writes only in the
//     working folder; TCP, abstract sockets and signals outside denied on
//     newer kernels), and a seccomp filter (amd64, arm64): no sockets or
//     connect, no ptrace, mounts, namespaces, kernel modules, BPF, io_uring;
//     in fallback mode also no signals to other processes and no new
//     sessions or process groups;
//   - a wall-clock limit: the program's own alarm (code_eval's timeout, a
//     "timed out" result), then the parent kills the process (and in
//     fallback mode its group) a little later; output is captured up to a
//     cap and the rest discarded.
//
// Other systems are refused. Sandbox.Enforced says what a Sandbox applies.
// A program can still forge its own result (write "passed" where the
// harness reports, as it could in lm-eval): the sandbox protects the
// machine, not the score.
package sandbox

import (
	"context"
	_ "embed"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"
)

//go:embed harness.py
var harness string

// DefaultTimeout is code_eval's timeout.
const DefaultTimeout = 3 * time.Second

// Options are a sandbox's limits; zero fields take the defaults.
type Options struct {
	// Python is the interpreter ("" = /usr/bin/python3 when it exists, else
	// python3 on PATH). In namespace and root modes it runs as nobody, so
	// it must be readable by every user.
	Python string
	// Timeout is a program's wall-clock limit (DefaultTimeout, code_eval's):
	// past it the program is stopped and reported "timed out".
	Timeout time.Duration
	// MemoryBytes caps the address space (RLIMIT_AS; default 2 GiB).
	MemoryBytes int64
	// CPUSeconds caps CPU time (RLIMIT_CPU; default 10).
	CPUSeconds int
	// Procs caps processes and threads (RLIMIT_NPROC; default 64).
	Procs int
	// FileBytes caps a file's size (RLIMIT_FSIZE) and the tmpfs (namespace
	// mode); default 16 MiB.
	FileBytes int64
	// OutputBytes of stdout and stderr written outside Python's own streams
	// are kept (Result.Output; default 64 KiB); the rest is discarded.
	OutputBytes int
	// Workers is how many programs run at once (default GOMAXPROCS).
	Workers int
	// NoNamespaces forces the fallback mode.
	NoNamespaces bool
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MemoryBytes <= 0 {
		o.MemoryBytes = 2 << 30
	}
	if o.CPUSeconds <= 0 {
		o.CPUSeconds = 10
	}
	if o.Procs <= 0 {
		o.Procs = 64
	}
	if o.FileBytes <= 0 {
		o.FileBytes = 16 << 20
	}
	if o.OutputBytes <= 0 {
		o.OutputBytes = 64 << 10
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o
}

// Result is one program's outcome.
type Result struct {
	// Status is code_eval's: "passed", "failed: <the exception>" or
	// "timed out" (also when the process died without a result).
	Status string
	// Output is what the process wrote to its stdout and stderr outside
	// Python's sys.stdout and sys.stderr (which are swallowed, as
	// code_eval's), up to Options.OutputBytes.
	Output string
	// Exit describes how the process ended when it did not report a
	// result (a signal, an exit status, the wall-clock kill).
	Exit string
}

// Passed reports whether the program passed.
func (r Result) Passed() bool { return r.Status == "passed" }

// Sandbox runs programs with fixed limits; safe for concurrent use.
type Sandbox struct {
	opts     Options
	python   string
	mode     mode
	enforced []string
	notes    []string
	sem      chan struct{}
}

// New resolves the interpreter and finds what the kernel allows, by
// running a probe program in namespace mode, then in fallback mode.
func New(o Options) (*Sandbox, error) {
	o = o.withDefaults()
	py, err := findPython(o.Python)
	if err != nil {
		return nil, err
	}
	s := &Sandbox{opts: o, python: py, sem: make(chan struct{}, o.Workers)}
	if err := s.probe(); err != nil {
		return nil, err
	}
	return s, nil
}

// Enforced says what confines the programs: the mode and every
// restriction the probe saw applied, then what could not be.
func (s *Sandbox) Enforced() string {
	out := s.mode.String() + ": " + strings.Join(s.enforced, ", ")
	if len(s.notes) > 0 {
		out += "; not applied: " + strings.Join(s.notes, "; ")
	}
	return out
}

// Python is the interpreter the programs run with.
func (s *Sandbox) Python() string { return s.python }

// Run runs every program (Options.Workers at a time) and returns their
// results in order. An error means the sandbox itself failed (the
// interpreter could not start), not a program.
func (s *Sandbox) Run(ctx context.Context, programs []string) ([]Result, error) {
	out := make([]Result, len(programs))
	errs := make([]error, len(programs))
	var wg sync.WaitGroup
	for i, p := range programs {
		select {
		case s.sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return nil, ctx.Err()
		}
		wg.Add(1)
		go func() {
			defer func() { <-s.sem; wg.Done() }()
			out[i], errs[i] = s.runOne(ctx, p, false)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("sandbox: program %d: %w", i, err)
		}
	}
	return out, ctx.Err()
}
