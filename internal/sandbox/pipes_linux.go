//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// pipes are a run's pipes: the program (stdin), the output (stdout and
// stderr), the result (fd 3) and the seccomp filter (fd 4).
type pipes struct {
	progR, progW, outR, outW, resR, resW, filtR, filtW *os.File
}

func newPipes() (*pipes, error) {
	p := &pipes{}
	for _, pair := range [][2]**os.File{{&p.progR, &p.progW}, {&p.outR, &p.outW}, {&p.resR, &p.resW}, {&p.filtR, &p.filtW}} {
		r, w, err := os.Pipe()
		if err != nil {
			p.close()
			return nil, fmt.Errorf("sandbox pipe: %w", err)
		}
		*pair[0], *pair[1] = r, w
	}
	return p, nil
}

// closeChildEnds closes the ends the child holds, once it started.
func (p *pipes) closeChildEnds() {
	for _, f := range []*os.File{p.progR, p.outW, p.resW, p.filtR} {
		f.Close()
	}
}

func (p *pipes) close() {
	for _, f := range []*os.File{p.progR, p.progW, p.outR, p.outW, p.resR, p.resW, p.filtR, p.filtW} {
		if f != nil {
			f.Close()
		}
	}
}

// findPython resolves the interpreter: name, or /usr/bin/python3 when it
// exists, else python3 on PATH; a launcher script (pyenv's shims) is
// resolved to the interpreter it runs (sys.executable), because the
// sandbox's scrubbed environment would break it.
func findPython(name string) (string, error) {
	if name == "" {
		name = "python3"
		if _, err := os.Stat("/usr/bin/python3"); err == nil {
			name = "/usr/bin/python3"
		}
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("sandbox: no Python interpreter %q: %w (code tasks run the generated programs with Python)", name, err)
	}
	out, err := exec.Command(path, "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		return "", fmt.Errorf("sandbox: %s does not run: %w", path, err)
	}
	exe := strings.TrimSpace(string(out))
	if exe == "" {
		return "", fmt.Errorf("sandbox: %s has no sys.executable", path)
	}
	return filepath.Clean(exe), nil
}
