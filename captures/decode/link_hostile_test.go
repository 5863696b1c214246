package decode

import (
	"encoding/binary"
	"testing"

	"github.com/google/gopacket"

	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// A Linux SLL header whose address length is past its 8 bytes, or an ARP
// packet whose address sizes add up past the frame (or past 255, where
// gopacket's byte arithmetic wraps), is malformed in words, at the byte
// that says so: gopacket sliced first and its panic was the message.
func TestLinkLengthsChecked(t *testing.T) {
	sll := func(addrLen uint16, n int) []byte {
		b := make([]byte, 16+n)
		binary.BigEndian.PutUint16(b[2:], 1)
		binary.BigEndian.PutUint16(b[4:], addrLen)
		binary.BigEndian.PutUint16(b[14:], 0x0800)
		return b
	}
	arpFrame := func(hw, pr byte, n int) []byte {
		b := make([]byte, 14+8+n)
		b[12], b[13] = 0x08, 0x06
		binary.BigEndian.PutUint16(b[14:], 1)
		binary.BigEndian.PutUint16(b[16:], 0x0800)
		b[18], b[19] = hw, pr
		return b
	}
	for _, c := range []struct {
		name   string
		lt     pcapfile.LinkType
		data   []byte
		layer  string
		offset int
		msg    string
	}{
		{"SLL address length 65535", pcapfile.LinkTypeLinuxSLL, sll(0xffff, 20), "Linux SLL", 4, "address length 65535 is over the 8 bytes the header holds"},
		{"SLL address length 12, in the frame", pcapfile.LinkTypeLinuxSLL, sll(12, 20), "Linux SLL", 4, "address length 12 is over the 8 bytes the header holds"},
		{"SLL short", pcapfile.LinkTypeLinuxSLL, sll(6, 0)[:11], "Linux SLL", 11, "need 16 bytes, have 11"},
		{"ARP sizes past the frame", pcapfile.LinkTypeEthernet, arpFrame(200, 200, 40), "ARP", 62,
			"need 808 bytes for two 200-byte hardware and two 200-byte protocol addresses, have 48"},
		{"ARP short", pcapfile.LinkTypeEthernet, arpFrame(6, 4, 2)[:19], "ARP", 19, "need 8 bytes, have 5"},
	} {
		rec := pcapfile.Record{Frame: 3, LinkType: c.lt, Data: c.data,
			Info: gopacket.CaptureInfo{CaptureLength: len(c.data), Length: len(c.data)}}
		p := NewDecoder().Decode(&rec)
		want := &frame.FrameError{Frame: 3, Layer: c.layer, Offset: c.offset, Msg: c.msg}
		if p.Err == nil || *p.Err != *want {
			t.Errorf("%s: %v, want %v", c.name, p.Err, want)
		}
	}
	// Long ARP addresses that the frame holds decode, as gopacket's byte
	// sums could not.
	b := arpFrame(100, 100, 400)
	rec := pcapfile.Record{Frame: 1, LinkType: pcapfile.LinkTypeEthernet, Data: b,
		Info: gopacket.CaptureInfo{CaptureLength: len(b), Length: len(b)}}
	if p := NewDecoder().Decode(&rec); p.Err != nil || p.ARP == nil || len(p.ARP.DstProtAddress) != 100 || len(p.ARP.Payload) != 0 {
		t.Errorf("408-byte ARP: %v, %+v", p.Err, p.ARP)
	}
}
