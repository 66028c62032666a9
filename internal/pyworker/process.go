package pyworker

import (
	"bufio"
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// script is the worker, run with `python -c`.
//
//go:embed worker.py
var script string

// process is one running worker: requests go to its stdin, answers come
// back as lines on its stdout, its stderr is kept (the last lines) for
// error messages.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte // answers; closed when stdout ends
	stderr *tail
	exited chan struct{} // closed once the process has been waited for
	err    error         // cmd.Wait's error, set before exited closes
}

// start runs exe -c script.
func start(exe string) (*process, error) {
	cmd := exec.Command(exe, "-c", script)
	p := &process{cmd: cmd, lines: make(chan []byte, 1), stderr: &tail{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, &Error{Kind: "start", Msg: fmt.Sprintf("cannot start %s: %v", exe, err)}
	}
	p.stdin = in
	go p.read(out)
	return p, nil
}

// read passes stdout's lines to p.lines, then waits for the process.
func (p *process) read(out io.Reader) {
	r := bufio.NewReaderSize(out, 1<<16)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			break
		}
		p.lines <- line
	}
	close(p.lines)
	p.err = p.cmd.Wait()
	close(p.exited)
}

// call sends one request line and waits at most timeout for its answer.
func (p *process) call(req []byte, timeout time.Duration) ([]byte, error) {
	wrote := make(chan error, 1)
	go func() {
		_, err := p.stdin.Write(append(req, '\n'))
		wrote <- err
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case line, ok := <-p.lines:
		if !ok {
			return nil, p.exitError()
		}
		return line, nil
	case <-timer.C:
		p.kill()
		return nil, &Error{Kind: "timeout", Msg: fmt.Sprintf("no answer within %v; goeval stopped the Python worker", timeout)}
	}
}

// exitError describes a worker that ended while a call waited.
func (p *process) exitError() error {
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
		p.kill()
		<-p.exited
	}
	status := "exited"
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		status = ee.ProcessState.String()
	}
	msg := "the Python worker ended (" + status + ")"
	if last := p.stderr.lastLine(); last != "" {
		msg += "; its last line on stderr: " + last
	}
	return &Error{Kind: "exited", Msg: msg}
}

// kill stops the process and waits for it.
func (p *process) kill() {
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
	}
	go func() { // unblock the reader should it hold an unread line
		for range p.lines {
		}
	}()
	<-p.exited
}

// close ends the worker: stdin closed (it returns), killed after a grace
// period.
func (p *process) close() {
	_ = p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(2 * time.Second):
		p.kill()
	}
}

// tail keeps the last bytes written to it (a worker's stderr).
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailMax = 8 << 10

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > tailMax {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-tailMax:]...)
	}
	return len(b), nil
}

// lastLine is the last non-empty line written, trimmed.
func (t *tail) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := bytes.Split(bytes.TrimSpace(t.buf), []byte("\n"))
	return strings.TrimSpace(string(lines[len(lines)-1]))
}
