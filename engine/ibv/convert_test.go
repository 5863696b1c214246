package ibv

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

// Every status the engine names goes to its IBV_WC_ value and back; the
// libibverbs statuses it lacks come back as GENERAL_ERR, not known.
func TestStatusBothWays(t *testing.T) {
	for _, s := range verbs.Statuses() {
		c, err := StatusToC(s)
		if err != nil {
			t.Fatalf("%v: %v", s, err)
		}
		if CStatusName(c) != s.String() {
			t.Errorf("%v -> %d is %s in libibverbs", s, c, CStatusName(c))
		}
		back, known := StatusFromC(c)
		if back != s || !known {
			t.Errorf("%v -> %d -> %v (known %v)", s, c, back, known)
		}
	}
	for _, c := range []uint32{3, 6, 14, 15, 17, 18, 22, 23, 300} {
		if s, known := StatusFromC(c); known || s != verbs.StatusGeneralErr {
			t.Errorf("raw %d (%s) -> %v known %v, want GENERAL_ERR unknown", c, CStatusName(c), s, known)
		}
	}
	if _, err := StatusToC(verbs.Status(99)); err == nil {
		t.Error("status 99 has a C value")
	}
}

func TestOpcodes(t *testing.T) {
	for _, o := range []verbs.WROpcode{verbs.WRRDMAWrite, verbs.WRSend, verbs.WRRDMARead, verbs.WRSendWithInv, verbs.WRLocalInv} {
		if c, err := wrOpcodeToC(o); err != nil || c != uint32(o) {
			t.Errorf("%v -> %d, %v", o, c, err)
		}
	}
	for _, o := range []verbs.WROpcode{verbs.WRRegMR, verbs.WRRDMAReadWithInv} {
		if _, err := wrOpcodeToC(o); !errors.Is(err, verbs.EOPNOTSUPP) {
			t.Errorf("%v: %v, want EOPNOTSUPP", o, err)
		}
	}
	if wcOpcodeFromC(128) != verbs.WCRecv || wcOpcodeFromC(3) != verbs.WCUnknownOpcode {
		t.Error("wc opcode mapping")
	}
	if !consumesRecv(verbs.WRSend) || !consumesRecv(verbs.WRRDMAWriteWithImm) || consumesRecv(verbs.WRRDMAWrite) || consumesRecv(verbs.WRRDMARead) {
		t.Error("consumesRecv")
	}
}

func TestAccessAddsLocalWrite(t *testing.T) {
	if got := accessToC(verbs.AccessRemoteWrite); got != uint32(verbs.AccessRemoteWrite|verbs.AccessLocalWrite) {
		t.Errorf("REMOTE_WRITE -> %#x", got)
	}
	if got := accessToC(verbs.AccessRemoteRead); got != uint32(verbs.AccessRemoteRead) {
		t.Errorf("REMOTE_READ -> %#x", got)
	}
}

func TestMTU(t *testing.T) {
	for e, b := range map[uint32]int{1: 256, 2: 512, 3: 1024, 4: 2048, 5: 4096} {
		if got, err := mtuEnum(b); got != e || err != nil {
			t.Errorf("mtuEnum(%d) = %d, %v", b, got, err)
		}
		if mtuBytes(e) != b {
			t.Errorf("mtuBytes(%d) = %d", e, mtuBytes(e))
		}
	}
	if _, err := mtuEnum(1500); err == nil {
		t.Error("1500 accepted")
	}
	if mtuBytes(0) != 0 || mtuBytes(6) != 0 {
		t.Error("mtuBytes out of range")
	}
}

func TestAttrOf(t *testing.T) {
	a := AttrOf("rxe0", RawAttr{MaxQPWR: 1048576, MaxSGE: 32, MaxSGERd: 32, MaxCQE: 32767, MaxMR: 524287,
		MaxQPRdAtom: 128, MaxQPInitRdAtom: 128, ActiveMTU: 3}, 4096)
	want := verbs.DeviceAttr{Name: "rxe0", PageSize: 4096, MaxQPWR: 1048576, MaxSendSGE: 32, MaxRecvSGE: 32, MaxSGERd: 32,
		MaxCQE: 32767, MaxMR: 524287, MaxQPInitRdAtom: 128, MaxQPRdAtom: 128}
	if a != want {
		t.Errorf("AttrOf = %+v\nwant %+v", a, want)
	}
}

func gid(s string, v2 bool, idx int) GID {
	g := GID{Index: idx, RoCEv2: v2}
	switch s {
	case "ll":
		copy(g.Raw[:], []byte{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0, 0xff, 0xfe, 0x12, 0x34, 0x01})
	case "v4":
		copy(g.Raw[10:], []byte{0xff, 0xff, 192, 0, 2, 1})
	}
	return g
}

func TestPickGID(t *testing.T) {
	g, err := PickGID([]GID{gid("ll", true, 0), gid("v4", false, 1), gid("v4", true, 2)})
	if err != nil || g.Index != 2 || g.String() != "::ffff:192.0.2.1" {
		t.Errorf("picked %v %v, want GID[2] ::ffff:192.0.2.1", g, err)
	}
	g, err = PickGID([]GID{gid("zero", true, 0), gid("ll", true, 1)})
	if err != nil || g.Index != 1 || g.String() != "fe80:0:0:0:5054:ff:fe12:3401" {
		t.Errorf("fallback picked %v (%v)", g, err)
	}
	if _, err := PickGID([]GID{gid("v4", false, 0)}); err == nil {
		t.Error("a RoCEv1-only table gave a GID")
	}
}

func TestPSNForFitsAndDiffers(t *testing.T) {
	if psnFor(17) == psnFor(18) || psnFor(17) > 0xffffff {
		t.Errorf("psnFor(17)=%#x psnFor(18)=%#x", psnFor(17), psnFor(18))
	}
}

// A native InfiniBand port is refused at startup with the reason; a RoCE
// (Ethernet) port is taken.
func TestLinkLayer(t *testing.T) {
	if err := checkLinkLayer("rxe0", 1, linkLayerEthernet); err != nil {
		t.Errorf("Ethernet: %v", err)
	}
	for _, ll := range []uint8{linkLayerInfiniBand, linkLayerUnspecified} {
		err := checkLinkLayer("mlx5_0", 1, ll)
		if err == nil || !strings.Contains(err.Error(), "mlx5_0 port 1 is a native InfiniBand port: it has no RoCEv2 GID") || !errors.Is(err, verbs.EOPNOTSUPP) {
			t.Errorf("link layer %d: %v", ll, err)
		}
	}
}

// ENOMEM from a registration names the memlock limit; nothing else does.
func TestMemlockHint(t *testing.T) {
	if h := memlockHint(fmt.Errorf("reg: %w", verbs.ENOMEM)); !strings.Contains(h, "ulimit -l") {
		t.Errorf("ENOMEM: %q", h)
	}
	if h := memlockHint(verbs.EINVAL); h != "" {
		t.Errorf("EINVAL: %q", h)
	}
}
