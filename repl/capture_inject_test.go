package repl

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/engine/xprt"
	"github.com/rdmalab/rdmalab/proto/nfs"
	"github.com/rdmalab/rdmalab/proto/oncrpc"
	"github.com/rdmalab/rdmalab/proto/xdr"
)

// hostileName clears the screen and forges a line break.
const hostileName = "\x1b[2J\r\n"

// hostileLookup is an NFSv3 LOOKUP of hostileName, from a client whose
// AUTH_SYS machine name is hostileName too.
func hostileLookup() []byte {
	cred := oncrpc.AuthSysParams{MachineName: hostileName}
	h := oncrpc.CallHeader{RPCVers: oncrpc.RPCVersion, Prog: nfs.ProgNFS, Vers: 3, Proc: uint32(nfs.Proc3Lookup),
		Cred: cred.Auth(), Verf: oncrpc.OpaqueAuth{Flavor: oncrpc.AuthNone}}
	w := xdr.NewWriter(h.AppendTo(nil))
	w.OpaqueVar([]byte{1, 2, 3, 4}) // the directory's handle
	w.String(hostileName)
	return w.Bytes()
}

// A capture whose NFS file name holds an escape sequence and a CR LF
// (issue 9): packets and packet print it escaped, never raw; packet
// --json carries it exactly.
func TestCaptureNamesEscapedInREPL(t *testing.T) {
	s, _ := trafficSession(t)
	if _, err := s.lab.Call(xprt.CallSpec{Label: "hostile LOOKUP", Msg: hostileLookup()}); err != nil {
		t.Fatal(err)
	}
	exec(t, s, "continue")
	exec(t, s, "capture save hostile.pcap")
	exec(t, s, "capture open hostile.pcap")

	list := exec(t, s, "packets rpc")
	frame := 0
	for _, l := range strings.Split(list, "\n") {
		if strings.Contains(l, "LOOKUP Call") {
			frame, _ = strconv.Atoi(strings.Fields(l)[0])
			if !strings.Contains(l, `\x1b[2J\r\n`) {
				t.Errorf("packets: the name is not shown escaped: %q", l)
			}
		}
	}
	if frame == 0 {
		t.Fatalf("packets lists no LOOKUP call:\n%s", list)
	}
	detail := exec(t, s, "packet "+strconv.Itoa(frame))
	for what, out := range map[string]string{"packets": list, "packet N": detail} {
		if strings.ContainsAny(out, "\x1b\r") {
			t.Errorf("%s prints a raw ESC or CR:\n%q", what, out)
		}
	}
	if !strings.Contains(detail, `\x1b[2J\r\n`) {
		t.Errorf("packet %d does not show the escaped name:\n%s", frame, detail)
	}

	var out bytes.Buffer
	if err := s.Exec("packet "+strconv.Itoa(frame)+" --json", Pos{}, &out); err != nil {
		t.Fatal(err)
	}
	if bytes.ContainsAny(out.Bytes(), "\x1b\r") {
		t.Errorf("packet --json holds a raw ESC or CR")
	}
	var v struct {
		Fields map[string]any `json:"fields"`
	}
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"nfs.name", "rpc.auth.machinename"} {
		if got := v.Fields[field]; got != hostileName {
			t.Errorf("packet --json: %s = %q, want %q exactly", field, got, hostileName)
		}
	}
}
