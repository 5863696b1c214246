//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// A pseudo-terminal opened with the syscall package alone (Linux).
type pty struct {
	master, slave *os.File
	mu            sync.Mutex
	out           bytes.Buffer
}

func ioctl(fd, req uintptr, arg unsafe.Pointer) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, req, uintptr(arg)); e != 0 {
		return e
	}
	return nil
}

func openPTY(tb testing.TB, cols, rows uint16) *pty {
	tb.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		tb.Skipf("no pseudo-terminal: %v", err)
	}
	var unlock int32
	var n uint32
	if err := ioctl(m.Fd(), syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		tb.Fatal(err)
	}
	if err := ioctl(m.Fd(), syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		tb.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	ws := [4]uint16{rows, cols, 0, 0}
	if err := ioctl(s.Fd(), syscall.TIOCSWINSZ, unsafe.Pointer(&ws)); err != nil {
		tb.Fatal(err)
	}
	p := &pty{master: m, slave: s}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := m.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	tb.Cleanup(func() { m.Close(); s.Close() })
	return p
}

func (p *pty) lflag(tb testing.TB) uint32 {
	var t syscall.Termios
	if err := ioctl(p.slave.Fd(), syscall.TCGETS, unsafe.Pointer(&t)); err != nil {
		tb.Fatal(err)
	}
	return t.Lflag
}

// waitFor waits until the output holds s and returns how long it took.
func (p *pty) waitFor(tb testing.TB, s string, timeout time.Duration) time.Duration {
	tb.Helper()
	start := time.Now()
	for time.Since(start) < timeout {
		p.mu.Lock()
		ok := bytes.Contains(p.out.Bytes(), []byte(s))
		p.mu.Unlock()
		if ok {
			return time.Since(start)
		}
		time.Sleep(time.Millisecond)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	tb.Fatalf("no %q after %v; the terminal shows:\n%s", s, timeout, p.out.String())
	return 0
}

// startOnPTY runs rdmalab (the test binary, which testscript.Main put on
// PATH under that name) with the pty as its controlling terminal.
func startOnPTY(tb testing.TB, p *pty, env ...string) *exec.Cmd {
	return startNamed(tb, "rdmalab", p, env...)
}

func startNamed(tb testing.TB, name string, p *pty, env ...string) *exec.Cmd {
	tb.Helper()
	bin, err := exec.LookPath(name)
	if err != nil {
		tb.Fatalf("rdmalab is not on PATH: %v", err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(tb.TempDir(), "state"), "TERM=xterm")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.slave, p.slave, p.slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	return cmd
}

const cooked = syscall.ICANON | syscall.ECHO | syscall.ISIG

// The terminal comes back as it was after quit, after SIGTERM, and a
// SIGINT at the prompt does not end the session. A session a signal
// ended exits as a shell expects of one, 128+signo.
func TestTerminalRestored(t *testing.T) {
	for _, tc := range []struct {
		name   string
		end    func(p *pty, cmd *exec.Cmd)
		status int
	}{
		{"quit", func(p *pty, cmd *exec.Cmd) { p.master.WriteString("quit\r") }, 0},
		{"ctrl-d", func(p *pty, cmd *exec.Cmd) { p.master.WriteString("\x04") }, 0},
		{"sigterm", func(p *pty, cmd *exec.Cmd) { cmd.Process.Signal(syscall.SIGTERM) }, 128 + int(syscall.SIGTERM)},
		{"sighup", func(p *pty, cmd *exec.Cmd) { cmd.Process.Signal(syscall.SIGHUP) }, 128 + int(syscall.SIGHUP)},
		{"sigquit", func(p *pty, cmd *exec.Cmd) { cmd.Process.Signal(syscall.SIGQUIT) }, 128 + int(syscall.SIGQUIT)},
		{"sigint then quit", func(p *pty, cmd *exec.Cmd) {
			cmd.Process.Signal(syscall.SIGINT)
			time.Sleep(50 * time.Millisecond)
			p.master.WriteString("engine\r")
			p.waitFor(t, "engine sim: the embedded", 5*time.Second)
			p.master.WriteString("quit\r")
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := openPTY(t, 80, 24)
			before := p.lflag(t)
			if before&cooked != cooked {
				t.Fatalf("the pty does not start cooked: lflag %#x", before)
			}
			cmd := startOnPTY(t, p)
			p.waitFor(t, "fix2025>", 10*time.Second)
			if p.lflag(t)&(syscall.ICANON|syscall.ECHO) != 0 {
				t.Error("the prompt runs with the terminal cooked")
			}
			tc.end(p, cmd)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if got := cmd.ProcessState.ExitCode(); got != tc.status {
					t.Errorf("exit status %d, want %d (%v)", got, tc.status, err)
				}
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatal("rdmalab did not exit")
			}
			if after := p.lflag(t); after != before {
				t.Errorf("terminal lflag %#x after exit, %#x before", after, before)
			}
		})
	}
}

// A panic outside any command ends the session with status 3, the panic
// and its stack on stderr, and the terminal as it was.
func TestTerminalRestoredOnPanic(t *testing.T) {
	p := openPTY(t, 80, 24)
	before := p.lflag(t)
	cmd := startNamed(t, "rdmalab-panic", p)
	p.waitFor(t, "fix2025>", 10*time.Second)
	p.master.WriteString("panic\r")
	p.waitFor(t, "rdmalab: a bug in the REPL loop", 10*time.Second)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Errorf("exit %v, want status 3", err)
	}
	if after := p.lflag(t); after != before {
		t.Errorf("terminal lflag %#x after the panic, %#x before", after, before)
	}
}

// BenchmarkStartupToPrompt measures a real start: exec, the lab, the
// terminal set-up, the banner, until the prompt is on the screen.
func BenchmarkStartupToPrompt(b *testing.B) {
	var total time.Duration
	for i := 0; i < b.N; i++ {
		p := openPTY(b, 80, 24)
		start := time.Now()
		cmd := startOnPTY(b, p)
		p.waitFor(b, "fix2025>", 10*time.Second)
		total += time.Since(start)
		p.master.WriteString("quit\r")
		cmd.Wait()
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/prompt")
}
