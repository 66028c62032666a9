//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sandboxes are a namespace-mode sandbox (when the kernel allows one) and
// a fallback-mode one, or the test is skipped without Python.
func sandboxes(t *testing.T) map[string]*Sandbox {
	t.Helper()
	if _, err := findPython(""); err != nil {
		t.Skipf("no Python: %v", err)
	}
	out := map[string]*Sandbox{}
	for name, no := range map[string]bool{"namespaces": false, "fallback": true} {
		s, err := New(Options{NoNamespaces: no, Timeout: 2 * time.Second, OutputBytes: 1 << 10})
		if err != nil {
			t.Fatal(err)
		}
		if name == "namespaces" && s.mode != modeNamespaces {
			t.Logf("namespaces unavailable here: %s", s.Enforced())
			continue
		}
		t.Logf("%s: %s", name, s.Enforced())
		out[name] = s
	}
	return out
}

// escape is one attempt: a program that passes only if it gets out, and
// what the host must look like afterwards.
type escape struct {
	name, program string
	status        string             // the wanted status's prefix ("": anything but passed)
	after         func(t *testing.T) // checks on the host (nil: none)
}

// TestEscapesContained runs escape attempts — network, writing outside the
// sandbox, a fork bomb, memory bombs, an infinite loop (with the alarm
// ignored), huge output, killing the parent and every process, reading
// goeval's environment and files — each as a program that would pass had
// it escaped. Each must fail (or time out), the host must be untouched,
// and the run must go on: a last, honest program passes.
func TestEscapesContained(t *testing.T) {
	for mode, s := range sandboxes(t) {
		t.Run(mode, func(t *testing.T) { runEscapes(t, s) })
	}
}

func runEscapes(t *testing.T, s *Sandbox) {
	t.Setenv("GOEVAL_SANDBOX_TEST_SECRET", "s3cret")
	outside := outsideDir(t)
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("s3cret"), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dialed := make(chan bool, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			dialed <- true
			c.Close()
		}
	}()
	sentinel := startSentinel(t)
	port := ln.Addr().(*net.TCPAddr).Port
	attempts := []escape{
		{"network: dial goeval's host", fmt.Sprintf("import socket\nsocket.create_connection(('127.0.0.1', %d), timeout=1).close()", port), "failed", func(t *testing.T) {
			select {
			case <-dialed:
				t.Error("the listener on the host was reached")
			default:
			}
		}},
		{"network: resolve a name", "import socket\nsocket.getaddrinfo('example.com', 80)", "failed", nil},
		{"write outside the sandbox", fmt.Sprintf("open(%q, 'w').write('pwned')", filepath.Join(outside, "pwned")), "failed", func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(outside, "pwned")); err == nil {
				t.Error("the program wrote outside the sandbox")
			}
		}},
		// named, so that the check after the run counts its processes alone
		{"fork bomb", "import ctypes\nlibc = ctypes.CDLL(None)\nlibc.prctl(15, b'" + bombName + "', 0, 0, 0)\nwhile True:\n    libc.fork()", "timed out", nil},
		{"memory bomb at once", "x = bytearray(64 << 30)", "failed", nil},
		// MemoryError at the address-space limit, or the alarm first on a busy machine
		{"memory bomb, growing", "l = []\nwhile True:\n    l.append(bytearray(512 << 20))", "", nil},
		{"infinite loop, alarm ignored", "import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\nwhile True:\n    pass", "timed out", nil},
		{"huge output", "import os\nwhile True:\n    os.write(1, b'x' * 65536)", "timed out", nil},
		{"kill the parent", fmt.Sprintf("import ctypes\nassert ctypes.CDLL(None).kill(%d, 9) == 0", os.Getpid()), "failed", nil},
		{"kill every process", "import ctypes\nassert ctypes.CDLL(None).kill(-1, 9) == 0", "", func(t *testing.T) {
			if err := sentinel.Process.Signal(syscall.Signal(0)); err != nil {
				t.Errorf("a process outside the sandbox died: %v", err)
			}
		}},
		{"read goeval's environment", "import os\nassert os.environ.get('GOEVAL_SANDBOX_TEST_SECRET') == 's3cret'", "failed", nil},
		{"read goeval's environment through /proc", fmt.Sprintf("assert b's3cret' in open('/proc/%d/environ', 'rb').read()", os.Getpid()), "failed", nil},
		{"read a file outside the sandbox", fmt.Sprintf("assert open(%q).read() == 's3cret'", secret), "failed", nil},
		{"an honest program", "def add(a, b):\n    return a + b\nassert add(2, 3) == 5", "passed", nil},
	}
	programs := make([]string, len(attempts))
	for i, a := range attempts {
		programs[i] = a.program
	}
	start := time.Now()
	res, err := s.Run(context.Background(), programs)
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range attempts {
		r := res[i]
		switch {
		case a.status == "" && r.Passed():
			t.Errorf("%s: passed: it got out", a.name)
		case a.status != "" && !strings.HasPrefix(r.Status, a.status):
			t.Errorf("%s: %q (%s), want %q", a.name, r.Status, r.Exit, a.status)
		}
		if a.after != nil {
			a.after(t)
		}
		t.Logf("%-40s %s %s", a.name, r.Status, r.Exit)
	}
	if n := len(res[7].Output); n == 0 || n > 1<<10 {
		t.Errorf("huge output: %d bytes kept, want 1 KiB at most", n)
	}
	if n := bombsLeft(2 * time.Second); n > 0 {
		t.Errorf("%d processes of the fork bomb left after the run: its children survived", n)
	}
	t.Logf("%d programs in %v", len(programs), time.Since(start).Round(time.Millisecond))
}

// outsideDir is a folder outside the temporary folders a sandbox may
// use, writable by everyone, so that only the sandbox stops a write.
func outsideDir(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(wd, "escape-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}

// startSentinel starts a process the sandboxed programs could signal were
// they not confined: the uid they run as in fallback mode.
func startSentinel(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{}}}
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// bombName is the fork bomb's process name (prctl PR_SET_NAME, inherited
// by its children): other tests' sandboxed programs may run as nobody at
// the same time, so the bomb's processes are counted by name.
const bombName = "goeval-bomb"

// bombsLeft counts the processes named bombName, waiting up to wait for
// killed ones to go.
func bombsLeft(wait time.Duration) int {
	deadline := time.Now().Add(wait)
	for {
		n := 0
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			if b, err := os.ReadFile("/proc/" + e.Name() + "/comm"); err == nil && strings.TrimSpace(string(b)) == bombName {
				n++
			}
		}
		if n == 0 || time.Now().After(deadline) {
			return n
		}
		time.Sleep(50 * time.Millisecond)
	}
}
