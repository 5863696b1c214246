//go:build ibv && cgo

package ibv

import (
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

// The pure-Go tables hold libibverbs' own numbers.
func TestTablesMatchTheHeaders(t *testing.T) {
	c := cConstants()
	for v, name := range cStatus {
		if got, ok := c[name]; !ok || got != uint32(v) {
			t.Errorf("IBV_WC_%s = %d in the header, %d here", name, got, v)
		}
	}
	for name, o := range map[string]verbs.WROpcode{"WR_RDMA_WRITE": verbs.WRRDMAWrite, "WR_RDMA_WRITE_WITH_IMM": verbs.WRRDMAWriteWithImm,
		"WR_SEND": verbs.WRSend, "WR_SEND_WITH_IMM": verbs.WRSendWithImm, "WR_RDMA_READ": verbs.WRRDMARead,
		"WR_LOCAL_INV": verbs.WRLocalInv, "WR_SEND_WITH_INV": verbs.WRSendWithInv} {
		if got, err := wrOpcodeToC(o); err != nil || got != c[name] {
			t.Errorf("IBV_%s = %d, wrOpcodeToC(%v) = %d, %v", name, c[name], o, got, err)
		}
	}
	for name, o := range map[string]verbs.WCOpcode{"WC_SEND": verbs.WCSend, "WC_RDMA_WRITE": verbs.WCRDMAWrite,
		"WC_RDMA_READ": verbs.WCRDMARead, "WC_LOCAL_INV": verbs.WCLocalInv, "WC_RECV": verbs.WCRecv, "WC_RECV_RDMA_WITH_IMM": verbs.WCRecvWithImm} {
		if got := wcOpcodeFromC(c[name]); got != o {
			t.Errorf("IBV_%s = %d reads as %v, want %v", name, c[name], got, o)
		}
	}
	for name, a := range map[string]verbs.Access{"ACCESS_LOCAL_WRITE": verbs.AccessLocalWrite, "ACCESS_REMOTE_WRITE": verbs.AccessRemoteWrite,
		"ACCESS_REMOTE_READ": verbs.AccessRemoteRead, "ACCESS_REMOTE_ATOMIC": verbs.AccessRemoteAtomic} {
		if c[name] != uint32(a) {
			t.Errorf("IBV_%s = %#x, the engine's %v = %#x", name, c[name], a, uint32(a))
		}
	}
	for name, v := range map[string]uint32{"LINK_LAYER_UNSPECIFIED": linkLayerUnspecified, "LINK_LAYER_INFINIBAND": linkLayerInfiniBand,
		"LINK_LAYER_ETHERNET": linkLayerEthernet} {
		if c[name] != v {
			t.Errorf("IBV_%s = %d, here %d", name, c[name], v)
		}
	}
	if e, _ := mtuEnum(256); e != c["MTU_256"] {
		t.Errorf("IBV_MTU_256 = %d, mtuEnum(256) = %d", c["MTU_256"], e)
	}
	if e, _ := mtuEnum(4096); e != c["MTU_4096"] {
		t.Errorf("IBV_MTU_4096 = %d, mtuEnum(4096) = %d", c["MTU_4096"], e)
	}
}

// Without a device Open says so; with some, a missing name lists them.
// (A device's own behaviour is proved inside qemu: test/rxe.)
func TestOpenSaysWhatIsMissing(t *testing.T) {
	devs, err := Devices()
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(Config{Server: "rdmalab_no_such0"})
	if err == nil {
		t.Fatal("opened a device that does not exist")
	}
	want := "no RDMA device is present"
	if len(devs) > 0 {
		want = "present: " + strings.Join(devs, ", ")
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("Open: %v\nwant it to say %q", err, want)
	}
}
