package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// liveFields are what the live tests compare: every layer's numbers and
// the analysis's verdicts, but no times (a live capture has its own).
var liveFields = []string{"-T", "fields", "-e", "frame.number", "-e", "frame.len", "-e", "ip.src", "-e", "ip.dst",
	"-e", "udp.srcport", "-e", "infiniband.bth.opcode", "-e", "infiniband.bth.destqp", "-e", "infiniband.bth.psn",
	"-e", "rdmalab.icrc_ok", "-e", "rdmalab.psn_status", "-e", "rpcordma.xid", "-e", "nfs.procedure_v3", "-e", "rdmalab.note.text"}

// needNetns skips (or fails under RDMALAB_REQUIRE_TOOLS=1) where a
// network namespace cannot be made: not root, or no ip.
func needNetns(t *testing.T) {
	t.Helper()
	why := ""
	if _, err := exec.LookPath("ip"); err != nil {
		why = "ip (iproute2) is not installed"
	} else if os.Geteuid() != 0 {
		why = "not root: a network namespace and a veth pair need it"
	}
	if why == "" {
		return
	}
	if os.Getenv("RDMALAB_REQUIRE_TOOLS") == "1" {
		t.Fatalf("%s, and RDMALAB_REQUIRE_TOOLS=1 requires the live capture test", why)
	}
	t.Skipf("%s: skipping the live capture test (set RDMALAB_REQUIRE_TOOLS=1 to make this a failure)", why)
}

// vethNetns makes a network namespace holding a veth pair va-vb, both up,
// and removes it at the end of the test. Nothing in it reaches the
// host's interfaces: the frames sent keep their own addresses.
func vethNetns(t *testing.T) string {
	t.Helper()
	ns := fmt.Sprintf("rdmalab-live-%d", os.Getpid())
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	exec.Command("ip", "netns", "del", ns).Run() // a leftover of a killed run
	ip("netns", "add", ns)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
	ip("-n", ns, "link", "add", "va", "type", "veth", "peer", "name", "vb")
	for _, l := range []string{"lo", "va", "vb"} {
		ip("-n", ns, "link", "set", l, "up")
	}
	return ns
}

// sendFrames sends the Ethernet frames of a capture out of iface in the
// namespace ns, from a packet socket made there (a socket stays in the
// namespace it was made in; the thread goes back to the test's).
func sendFrames(t *testing.T, ns, iface, capture string) int {
	t.Helper()
	fd, ifindex := nsPacketSocket(t, ns, iface)
	defer unix.Close(fd)
	r, err := pcapfile.Open(capture)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var rec pcapfile.Record
	n := 0
	for {
		if err := r.Next(&rec); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		to := &unix.SockaddrLinklayer{Ifindex: ifindex, Halen: 6}
		copy(to.Addr[:], rec.Data[:6])
		if err := unix.Sendto(fd, rec.Data, 0, to); err != nil {
			t.Fatalf("sending frame %d: %v", rec.Frame, err)
		}
		n++
		if n%64 == 0 {
			time.Sleep(2 * time.Millisecond) // a burst the size of a window, as a sender's
		}
	}
	return n
}

func nsPacketSocket(t *testing.T, ns, iface string) (fd, ifindex int) {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	self, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	defer self.Close()
	target, err := os.Open(filepath.Join("/run/netns", ns))
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		t.Fatalf("entering %s: %v", ns, err)
	}
	defer func() {
		if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err != nil {
			panic(fmt.Sprintf("back to the test's namespace: %v", err)) // the thread is no use after
		}
	}()
	ifi, err := net.InterfaceByName(iface)
	if err != nil {
		t.Fatal(err)
	}
	fd, err = unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	return fd, ifi.Index
}

// liveDecode is `rdmalab decode -i vb ARGS` running in ns.
type liveDecode struct {
	cmd      *exec.Cmd
	stdout   *syncBuffer
	stderr   *bytes.Buffer
	errLines chan string
}

func startLiveDecode(t *testing.T, ns string, args ...string) *liveDecode {
	t.Helper()
	bin, err := exec.LookPath("rdmalab")
	if err != nil {
		t.Fatalf("rdmalab is not on PATH: %v", err)
	}
	cmd := exec.Command("ip", append([]string{"netns", "exec", ns, bin, "decode", "-i", "vb"}, args...)...)
	d := &liveDecode{cmd: cmd, stdout: &syncBuffer{}, stderr: &bytes.Buffer{}, errLines: make(chan string, 100)}
	cmd.Stdout = d.stdout
	pr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			d.errLines <- sc.Text()
		}
		close(d.errLines)
	}()
	select {
	case l := <-d.errLines:
		d.stderr.WriteString(l + "\n")
		if !strings.Contains(l, "capturing on vb") {
			t.Fatalf("decode -i said %q first, not that it is capturing", l)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("decode -i did not start capturing in 10 s")
	}
	return d
}

// wait waits for the process to end (after a signal, or by itself) and
// returns its exit status.
func (d *liveDecode) wait(t *testing.T) int {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		for l := range d.errLines {
			d.stderr.WriteString(l + "\n")
		}
		done <- d.cmd.Wait()
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("decode -i did not end in 20 s; stderr:\n%s", d.stderr)
	}
	return d.cmd.ProcessState.ExitCode()
}

// decodeFile is `rdmalab decode ARGS`, in process.
func decodeFile(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(append([]string{"decode"}, args...), strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("decode %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	return out.String()
}

// The simulator's frames sent through a veth pair in a network namespace
// are decoded live on its other end as they are from the file: every
// layer's numbers and the analysis, in order, none dropped; -w saves
// them; Ctrl-C ends the capture with its counts; -c and -f end and
// choose as they say.
func TestLiveCaptureNetns(t *testing.T) {
	needNetns(t)
	ns := vethNetns(t)
	for _, name := range []string{"sim-nfs3.pcap", "nfs3-rdma.pcap"} {
		t.Run(name, func(t *testing.T) {
			capture := filepath.Join("captures", "testdata", name)
			saved := filepath.Join(t.TempDir(), "live.pcapng")
			d := startLiveDecode(t, ns, append([]string{"-w", saved}, liveFields...)...)
			n := sendFrames(t, ns, "va", capture)
			want := decodeFile(t, append(liveFields, capture)...)
			// The frames are in flight: wait for the last line, then stop.
			deadline := time.Now().Add(10 * time.Second)
			for strings.Count(d.stdout.String(), "\n") < n && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			d.cmd.Process.Signal(os.Interrupt)
			if code := d.wait(t); code != 0 {
				t.Fatalf("decode -i ended %d after Ctrl-C; stderr:\n%s", code, d.stderr)
			}
			if got := d.stdout.String(); got != want {
				t.Errorf("live decode differs from the file's:\n%s", firstDiff(got, want))
			}
			counts := fmt.Sprintf("%d frames read on vb (the kernel's filter kept %d, of which it dropped 0 for want of room)", n, n)
			if !strings.Contains(d.stderr.String(), counts) || !strings.Contains(d.stderr.String(), "saved "+fmt.Sprint(n)+" frames to "+saved) {
				t.Errorf("stderr says:\n%s\nwant %q and the file saved", d.stderr, counts)
			}
			if got := decodeFile(t, append(liveFields, saved)...); got != want {
				t.Errorf("-w's file decodes differently from the capture sent:\n%s", firstDiff(got, want))
			}
		})
	}
	t.Run("view", func(t *testing.T) {
		// view -i: the list grows as frames come; q ends it with the
		// counts and -w's file.
		capture := filepath.Join("captures", "testdata", "sim-nfs3.pcap")
		saved := filepath.Join(t.TempDir(), "view.pcapng")
		ts := tmuxShell(t, 120, 30, "ip netns exec "+ns+" $RDMALAB view -i vb -w "+saved)
		ts.waitFor(`Packets`)
		time.Sleep(300 * time.Millisecond) // the socket is open before the first screen; a margin all the same
		n := sendFrames(t, ns, "va", capture)
		ts.waitFor(fmt.Sprintf(`vb \(live\) · 1 of %d…`, n))
		ts.waitFor(fmt.Sprintf(`live · %d packets so far`, n))
		ts.keys("q")
		ts.waitFor(fmt.Sprintf(`saved %d frames to`, n))
		ts.waitFor(`EXITED 0`)
		if got, want := decodeFile(t, append(liveFields, saved)...), decodeFile(t, append(liveFields, capture)...); got != want {
			t.Errorf("view -i -w's file decodes differently from the capture sent:\n%s", firstDiff(got, want))
		}
	})
	t.Run("count and filter", func(t *testing.T) {
		capture := filepath.Join("captures", "testdata", "sim-nfs3.pcap")
		// -c 5 ends the capture by itself after five frames of 192.0.2.1's.
		// Without the analysis's fields: what it says of a reply depends on
		// whether its call was captured.
		fields := liveFields[:2+2*9]
		d := startLiveDecode(t, ns, append([]string{"-c", "5", "-f", "src host 192.0.2.1"}, fields...)...)
		sendFrames(t, ns, "va", capture)
		if code := d.wait(t); code != 0 {
			t.Fatalf("decode -i -c 5 ended %d; stderr:\n%s", code, d.stderr)
		}
		all := decodeFile(t, append(append([]string{"-Y", "ip.src == 192.0.2.1"}, fields...), capture)...)
		lines := strings.SplitAfter(all, "\n")
		got := d.stdout.String()
		if strings.Count(got, "\n") != 5 {
			t.Fatalf("-c 5 printed %d lines:\n%s", strings.Count(got, "\n"), got)
		}
		// Frame numbers are the capture's own: compare all but the first column.
		for i, l := range strings.SplitAfter(got, "\n")[:5] {
			_, g, _ := strings.Cut(l, "\t")
			_, w, _ := strings.Cut(lines[i], "\t")
			if g != w {
				t.Errorf("line %d: got %q, want %q", i+1, l, lines[i])
			}
		}
	})
}

// firstDiff shows the first line where got and want part.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d (of %d got, %d want):\n got  %q\n want %q", i+1, len(g), len(w), a, b)
		}
	}
	return "(same)"
}

// Without CAP_NET_RAW the error names the capability; an interface that
// is not there is named.
func TestLiveCaptureErrors(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"decode", "-i", "no-such-if0"}, strings.NewReader(""), &out, &errb); code != exitFailed ||
		!strings.Contains(errb.String(), `interface "no-such-if0": no such interface`) {
		t.Errorf("decode -i no-such-if0: exit %d, %q", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"decode", "-i", "lo", "-f", "udp and vlan"}, strings.NewReader(""), &out, &errb); code != exitUsage ||
		!strings.Contains(errb.String(), "-f: column 9: \"vlan\" is not supported") || !strings.Contains(errb.String(), "\n            ^\n") {
		t.Errorf("decode -f 'udp and vlan': exit %d, %q", code, errb.String())
	}
	for _, args := range [][]string{{"-f", "udp"}, {"-i", "lo", "x.pcap"}, {"-i", "lo", "--follow"}, {"--follow", "-"}} {
		errb.Reset()
		if code := run(append([]string{"decode"}, args...), strings.NewReader(""), &out, &errb); code != exitUsage {
			t.Errorf("decode %v: exit %d, want a usage error: %s", args, code, errb.String())
		}
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil || os.Geteuid() != 0 {
		t.Log("no setpriv, or not root: the capability's error is not tried")
		return
	}
	bin, err := exec.LookPath("rdmalab")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", bin, "decode", "-i", "lo")
	b, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != exitFailed || !strings.Contains(string(b), "needs the CAP_NET_RAW capability") {
		t.Errorf("decode -i lo without CAP_NET_RAW: exit %d, %v: %s", code, err, b)
	}
}
