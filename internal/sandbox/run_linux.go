//go:build linux

package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// mode is how a program is isolated.
type mode int

const (
	modeNamespaces mode = iota // user, pid, net, mount, IPC and UTS namespaces
	modeFallback               // a process group of its own, as nobody when root
)

func (m mode) String() string {
	if m == modeNamespaces {
		return "namespaces (user, pid, network, mount, IPC, UTS)"
	}
	return "no namespaces (the kernel refused a user namespace)"
}

// nobody is the uid and gid programs run as when goeval is root.
const nobody = 65534

// readRoots are the folders a program may read beneath (Landlock), with
// the interpreter's own prefix and sys.path, which the harness adds.
var readRoots = []string{"/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/etc", "/opt"}

// harnessConfig is the harness's argv[1].
type harnessConfig struct {
	Timeout    float64          `json:"timeout"`
	Namespaces bool             `json:"namespaces"`
	Workdir    string           `json:"workdir"`
	TmpfsBytes int64            `json:"tmpfs_bytes"`
	Limits     map[string]int64 `json:"limits"`
	ReadRoots  []string         `json:"read_roots"`
	Nr         map[string]int   `json:"nr"`
	Probe      bool             `json:"probe"`
}

// harnessReply is what the harness writes on fd 3.
type harnessReply struct {
	Result  string   `json:"result"`
	Error   string   `json:"error"`
	Applied []string `json:"applied"`
	Notes   []string `json:"notes"`
}

// probe runs a program that does nothing, in namespace mode and then
// (when that fails) in fallback mode, and records what the harness applied.
func (s *Sandbox) probe() error {
	var first error
	for _, m := range []mode{modeNamespaces, modeFallback} {
		if m == modeNamespaces && s.opts.NoNamespaces {
			continue
		}
		s.mode = m
		reply, err := s.start(context.Background(), "pass", true)
		if err == nil && reply.Error != "" {
			err = fmt.Errorf("the harness could not confine the process: %s", reply.Error)
		}
		if err == nil && reply.Result != "passed" {
			err = fmt.Errorf("the probe program did not pass: %q", reply.Result)
		}
		if err == nil {
			s.enforced = append([]string{"scrubbed environment", "process killed past the time limit"}, reply.Applied...)
			if m == modeFallback {
				s.enforced = append(s.enforced, runAs())
			}
			s.notes = reply.Notes
			return nil
		}
		if first == nil {
			first = err
		}
	}
	return fmt.Errorf("sandbox: %s cannot run programs: %w", s.python, first)
}

// runAs says whose uid fallback-mode programs run as.
func runAs() string {
	if os.Geteuid() == 0 {
		return "uid 65534 (nobody)"
	}
	return fmt.Sprintf("goeval's own uid %d (not root: no other to switch to)", os.Geteuid())
}

// runOne runs one program and turns the harness's reply into a Result.
func (s *Sandbox) runOne(ctx context.Context, program string, probe bool) (Result, error) {
	reply, err := s.start(ctx, program, probe)
	if err != nil {
		return Result{}, err
	}
	if reply.Error != "" {
		return Result{}, fmt.Errorf("the harness could not confine the process: %s", reply.Error)
	}
	return reply.res, nil
}

// outcome is a finished process: the harness's reply and the Result.
type outcome struct {
	harnessReply
	res Result
}

// start runs the harness on program and waits for it.
func (s *Sandbox) start(ctx context.Context, program string, probe bool) (outcome, error) {
	cfg, cleanup, err := s.config(probe)
	if err != nil {
		return outcome{}, err
	}
	defer cleanup()
	p, err := newPipes()
	if err != nil {
		return outcome{}, err
	}
	defer p.close()
	raw, _ := json.Marshal(cfg)
	cmd := exec.Command(s.python, "-c", harness, string(raw))
	cmd.Env = environ(cfg.Workdir)
	cmd.Dir = "/"
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.progR, p.outW, p.outW
	cmd.ExtraFiles = []*os.File{p.resW, p.filtR}
	cmd.SysProcAttr = s.procAttr()
	if err := cmd.Start(); err != nil {
		return outcome{}, fmt.Errorf("start %s: %w", s.python, err)
	}
	p.closeChildEnds()
	filter := buildFilter(s.mode == modeFallback, cmd.Process.Pid)
	go func() { // the harness reads the program, then the filter
		p.progW.Write([]byte(program))
		p.progW.Close()
		p.filtW.Write(filter)
		p.filtW.Close()
	}()
	output := readCapped(p.outR, s.opts.OutputBytes)
	result := readCapped(p.resR, 1<<20)
	exit := s.wait(ctx, cmd, probe)
	o := outcome{res: Result{Output: string(collect(output, p.outR)), Exit: exit}}
	reply := collect(result, p.resR)
	if len(reply) == 0 {
		o.res.Status = "timed out" // code_eval's status when the child reported nothing
		return o, ctx.Err()
	}
	if err := json.Unmarshal(reply, &o.harnessReply); err != nil {
		return o, fmt.Errorf("the harness's reply %q: %w", reply, err)
	}
	o.res.Status, o.res.Exit = o.Result, ""
	return o, nil
}

// wait waits for cmd until the wall-clock limit (the program's own alarm
// plus time to start and report) and kills what is left: the pid
// namespace's init, or the process group.
func (s *Sandbox) wait(ctx context.Context, cmd *exec.Cmd, probe bool) string {
	limit := s.opts.Timeout + 2*time.Second
	if probe {
		limit = 30 * time.Second
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	kill := func() {
		cmd.Process.Kill()
		if s.mode == modeFallback {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}
	var err error
	killed := ""
	select {
	case err = <-done:
	case <-time.After(limit):
		kill()
		err, killed = <-done, fmt.Sprintf("killed after %v", limit)
	case <-ctx.Done():
		kill()
		err, killed = <-done, "killed: the evaluation was cancelled"
	}
	if s.mode == modeFallback {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // anything the program left behind
	}
	if killed != "" {
		return killed
	}
	if err != nil {
		return err.Error()
	}
	return "exited without a result"
}

// config is the harness's settings for one run, and what to remove after.
func (s *Sandbox) config(probe bool) (harnessConfig, func(), error) {
	o := s.opts
	cfg := harnessConfig{Timeout: o.Timeout.Seconds(), Namespaces: s.mode == modeNamespaces, Workdir: "/tmp",
		TmpfsBytes: o.FileBytes, ReadRoots: readRoots, Nr: harnessSyscalls, Probe: probe,
		Limits: map[string]int64{"cpu": int64(o.CPUSeconds), "as": o.MemoryBytes, "nproc": int64(o.Procs),
			"fsize": o.FileBytes, "nofile": 256, "core": 0}}
	if cfg.Namespaces {
		return cfg, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "goeval-sandbox-")
	if err != nil {
		return cfg, nil, fmt.Errorf("sandbox folder: %w", err)
	}
	cleanup := func() { os.RemoveAll(dir) }
	uid := os.Geteuid()
	if uid == 0 {
		if err := os.Chown(dir, nobody, nobody); err != nil {
			cleanup()
			return cfg, nil, fmt.Errorf("sandbox folder: %w", err)
		}
		uid = nobody
	}
	cfg.Workdir = dir
	cfg.Limits["nproc"] += int64(threadsOf(uid)) // RLIMIT_NPROC counts every thread of the uid
	return cfg, cleanup, nil
}

// procAttr is the process's namespaces and credentials.
func (s *Sandbox) procAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if s.mode == modeFallback {
		a.Setpgid = true
		if os.Geteuid() == 0 {
			a.Credential = &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{}}
		}
		return a
	}
	a.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET | syscall.CLONE_NEWNS |
		syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS
	uid, gid := os.Geteuid(), os.Getegid()
	if uid == 0 {
		// Root maps the namespace's uid 0 to nobody, then becomes it (the
		// child's own uid, host root, is not mapped) without root's groups.
		uid, gid = nobody, nobody
		a.GidMappingsEnableSetgroups = true
		a.Credential = &syscall.Credential{Uid: 0, Gid: 0, Groups: []uint32{}}
	}
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: gid, Size: 1}}
	return a
}

// environ is the program's whole environment: nothing of goeval's.
func environ(home string) []string {
	return []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "TMPDIR=" + home, "LANG=C.UTF-8",
		"PYTHONHASHSEED=0", "PYTHONDONTWRITEBYTECODE=1", "PYTHONNOUSERSITE=1", "PYTHONSAFEPATH=1",
		"PYTHONIOENCODING=utf-8"}
}

// harnessSyscalls are the syscall numbers the harness calls through
// ctypes (no Python wrapper exists for them).
var harnessSyscalls = map[string]int{
	"mount_setattr": unix.SYS_MOUNT_SETATTR, "landlock_create_ruleset": unix.SYS_LANDLOCK_CREATE_RULESET,
	"landlock_add_rule": unix.SYS_LANDLOCK_ADD_RULE, "landlock_restrict_self": unix.SYS_LANDLOCK_RESTRICT_SELF,
	"capset": unix.SYS_CAPSET,
}

// threadsOf counts the threads running as uid (RLIMIT_NPROC's count).
func threadsOf(uid int) int {
	n := 0
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		var real, threads int
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 {
				switch f[0] {
				case "Uid:":
					fmt.Sscan(f[1], &real)
				case "Threads:":
					fmt.Sscan(f[1], &threads)
				}
			}
		}
		if real == uid {
			n += threads
		}
	}
	return n
}

// collect is what a readCapped channel read, waiting a second at most for
// the pipe's other writers (programs the process kill did not reach,
// which the seccomp filter should have made impossible), then closing it.
func collect(ch <-chan []byte, r *os.File) []byte {
	select {
	case b := <-ch:
		return b
	case <-time.After(time.Second):
		r.Close()
		return <-ch
	}
}

// readCapped reads r to its end in the background, keeping the first
// max bytes.
func readCapped(r io.Reader, max int) <-chan []byte {
	ch := make(chan []byte, 1)
	go func() {
		var kept []byte
		buf := make([]byte, 32<<10)
		for {
			n, err := r.Read(buf)
			if room := max - len(kept); room > 0 {
				kept = append(kept, buf[:min(n, room)]...)
			}
			if err != nil {
				ch <- kept
				return
			}
		}
	}()
	return ch
}
