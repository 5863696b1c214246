package decode

import (
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/rdmalab/rdmalab/captures/decode/internal/craft"
	"github.com/rdmalab/rdmalab/internal/testutil"
)

// TestRetransmittedPacketsKeepTheirPlace: a resent multi-packet SEND
// (verbs-rc-pingpong frames 20–23) numbers its packets 1–4 as the first
// sending did, not 1 each.
func TestRetransmittedPacketsKeepTheirPlace(t *testing.T) {
	d := decodeFile(t, testutil.Capture(t, "verbs-rc-pingpong.pcap"))
	for i, frame := range []int{20, 21, 22, 23} {
		line := d.lines[frame-1]
		want := []string{"[SEND #2 packet 1]", "[SEND #2 packet 2]", "[SEND #2 packet 3]", "[SEND #2 packet 4]"}[i]
		if !strings.Contains(line, want) || !strings.Contains(line, "[!retransmission]") {
			t.Errorf("frame %d: %s want %s and a retransmission", frame, line, want)
		}
	}
}

// TestProgramNames: the protocol column names the RPC program as
// Wireshark does (NFSACL for 100227), and -V names program and procedure.
func TestProgramNames(t *testing.T) {
	d := decodeFile(t, testutil.Capture(t, "nfs3-rdma.pcap"))
	for frame, want := range map[int]string{20: "NFSACL", 22: "NFSACL", 76: "NFSACL", 79: "NFSACL", 66: "NFS"} {
		if f := strings.Fields(d.lines[frame-1]); len(f) < 6 || f[5] != want {
			t.Errorf("frame %d: %s\nwant protocol %s", frame, d.lines[frame-1], want)
		}
	}
}

func serialize(t *testing.T, ls ...gopacket.SerializableLayer) []byte {
	t.Helper()
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true}, ls...); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// mldv2Report is frame 1 of oferby-proxy-roce-sport69.pcap: an MLDv2
// report behind an IPv6 hop-by-hop header, 90 bytes all captured.
const mldv2Report = "333300000016183d5ebf43b186dd6000000000240001fe800000000000007191" +
	"1f2d839a207cff0200000000000000000000000000163a000502000001008f00" +
	"1b1e0000000104000000ff0200000000000000000001ff9a207c"

// TestFramesBesideRDMA: ARP, ICMPv6 behind a hop-by-hop header and TCP
// get tshark's one-line summaries, and a fully captured frame is not
// called truncated.
// mldFrame is mldv2Report's bytes.
func mldFrame() []byte {
	mld := make([]byte, len(mldv2Report)/2)
	for i := range mld {
		var b byte
		for _, c := range mldv2Report[2*i : 2*i+2] {
			b = b<<4 | byte(strings.IndexRune("0123456789abcdef", c))
		}
		mld[i] = b
	}
	return mld
}

// besideRDMACapture writes a capture of frames that travel beside RDMA
// traffic: a real 90-byte MLDv2 report (an IPv6 hop-by-hop header), ARP
// and a TCP connection.
func besideRDMACapture(t *testing.T) string {
	mac1, _ := net.ParseMAC("18:3d:5e:bf:43:71")
	mac2, _ := net.ParseMAC("18:3d:5e:bf:51:92")
	ip1, ip2 := net.IP{192, 168, 70, 4}, net.IP{192, 168, 70, 6}
	eth := func(src, dst net.HardwareAddr, typ layers.EthernetType) *layers.Ethernet {
		return &layers.Ethernet{SrcMAC: src, DstMAC: dst, EthernetType: typ}
	}
	arp := func(op uint16, sha net.HardwareAddr, spa, tpa net.IP) []byte {
		return serialize(t, eth(sha, mac1, layers.EthernetTypeARP), &layers.ARP{AddrType: layers.LinkTypeEthernet,
			Protocol: layers.EthernetTypeIPv4, HwAddressSize: 6, ProtAddressSize: 4, Operation: op,
			SourceHwAddress: sha, SourceProtAddress: spa, DstHwAddress: make([]byte, 6), DstProtAddress: tpa})
	}
	tcp := func(src, dst net.IP, sp, dp layers.TCPPort, seq, ack uint32, win uint16, set func(*layers.TCP), payload string) []byte {
		ip := &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: src, DstIP: dst}
		tc := &layers.TCP{SrcPort: sp, DstPort: dp, Seq: seq, Ack: ack, Window: win}
		set(tc)
		tc.SetNetworkLayerForChecksum(ip)
		return serialize(t, eth(mac1, mac2, layers.EthernetTypeIPv4), ip, tc, gopacket.Payload(payload))
	}
	opts := []layers.TCPOption{{OptionType: layers.TCPOptionKindMSS, OptionLength: 4, OptionData: []byte{5, 0xb4}},
		{OptionType: layers.TCPOptionKindSACKPermitted, OptionLength: 2},
		{OptionType: layers.TCPOptionKindWindowScale, OptionLength: 3, OptionData: []byte{7}}}
	path := craft.WriteFrames(t,
		mldFrame(),
		arp(layers.ARPRequest, mac2, ip2, ip1),
		arp(layers.ARPReply, mac1, ip1, ip2),
		tcp(ip1, ip2, 47378, 9000, 1000, 0, 29200, func(c *layers.TCP) { c.SYN, c.Options = true, opts }, ""),
		tcp(ip2, ip1, 9000, 47378, 5000, 1001, 29200, func(c *layers.TCP) { c.SYN, c.ACK, c.Options = true, true, opts }, ""),
		tcp(ip1, ip2, 47378, 9000, 1001, 5001, 229, func(c *layers.TCP) { c.ACK = true }, ""),
		tcp(ip2, ip1, 9000, 47378, 5001, 1001, 229, func(c *layers.TCP) { c.PSH, c.ACK = true, true }, "hello"),
		tcp(ip1, ip2, 47378, 9000, 1001, 5006, 229, func(c *layers.TCP) { c.FIN, c.ACK = true, true }, ""),
	)
	return path
}

func TestFramesBesideRDMA(t *testing.T) {
	d := decodeFile(t, besideRDMACapture(t))
	want := []string{
		"ICMPv6      90 Multicast Listener Report Message v2",
		"ARP         60 Who has 192.168.70.4? Tell 192.168.70.6",
		"ARP         60 192.168.70.4 is at 18:3d:5e:bf:43:71",
		"TCP         66 47378 → 9000 [SYN] Seq=0 Win=29200 Len=0 MSS=1460 SACK_PERM WS=128",
		"TCP         66 9000 → 47378 [SYN, ACK] Seq=0 Ack=1 Win=29200 Len=0 MSS=1460 SACK_PERM WS=128",
		"TCP         60 47378 → 9000 [ACK] Seq=1 Ack=1 Win=29312 Len=0",
		"TCP         60 9000 → 47378 [PSH, ACK] Seq=1 Ack=1 Win=29312 Len=5",
		"TCP         60 47378 → 9000 [FIN, ACK] Seq=1 Ack=6 Win=29312 Len=0",
	}
	for i, w := range want {
		if !strings.HasSuffix(d.lines[i], w+"\n") {
			t.Errorf("frame %d:\n got %s want …%s", i+1, d.lines[i], w)
		}
	}
	if p := d.packets[0]; p.Truncated {
		t.Errorf("frame 1: 90 of 90 bytes captured, but called truncated")
	}
	// The same frame cut by the capture is truncated.
	cut := craft.WriteFrames(t, mldFrame()[:80])
	if d := decodeFile(t, cut); !d.packets[0].Truncated {
		t.Errorf("an MLD report cut at 80 of 90 bytes is not called truncated")
	}
}

var pingPair = regexp.MustCompile(` \((request|reply) in \d+\)$`)

// TestFramesBesideRDMAAsTshark compares the Info column of every frame
// without InfiniBand transport in the captures with tshark's.
func TestFramesBesideRDMAAsTshark(t *testing.T) {
	testutil.Tshark(t)
	compared := 0
	// The public captures hold many more such frames, when they are here.
	for _, path := range append([]string{besideRDMACapture(t)}, testutil.AllCaptures(t)...) {
		d := decodeFile(t, path)
		ts := strings.Split(testutil.RunTshark(t, "-r", path, "-T", "fields", "-e", "_ws.col.Protocol", "-e", "_ws.col.Info",
			"--disable-protocol", "tftp", "--disable-protocol", "smb2", "--disable-protocol", "nbss"), "\n")
		for i, p := range d.packets {
			if p.BTH != nil || p.UDP != nil || i >= len(ts) {
				continue
			}
			proto, info, _ := strings.Cut(ts[i], "\t")
			// tshark pairs pings; rdmalab does not.
			info = pingPair.ReplaceAllString(info, "")
			line := d.lines[i]
			if !strings.Contains(line, " "+proto+" ") || !strings.HasSuffix(line, " "+info+"\n") {
				t.Errorf("%s frame %d:\n got    %s tshark %s %s", filepath.Base(path), i+1, strings.TrimSpace(line), proto, info)
			}
			compared++
		}
	}
	if compared < 8 {
		t.Errorf("only %d frames compared", compared)
	}
	t.Logf("%d frames beside the RDMA traffic have tshark's Info", compared)
}

// TestTreeShowsCredentialsAndArguments: -V breaks the BTH flags out, shows
// the call's AUTH_UNIX credential and verifier and the NFS arguments, and
// each of those lines shows the bytes that hold its value.
func TestTreeShowsCredentialsAndArguments(t *testing.T) {
	x := openDone(t, testutil.Capture(t, "nfs3-rdma.pcap"))
	const frame = 76 // NFSACL V3 GETACL Call
	data := x.Bytes(frame - 1)
	lines := x.Detail(frame - 1)
	find := func(text string) TreeLine {
		t.Helper()
		for _, l := range lines {
			if l.Text == text {
				return l
			}
		}
		for _, l := range lines {
			t.Logf("%d:%d-%d %s%s", l.Depth, l.Start, l.End, strings.Repeat("  ", l.Depth), l.Text)
		}
		t.Fatalf("frame %d: no line %q", frame, text)
		return TreeLine{}
	}
	bytesOf := func(l TreeLine) string { return fmt.Sprintf("%x", data[l.Start:l.End]) }
	for text, want := range map[string]string{
		"Program: NFSACL (100227), Version: 3, Procedure: GETACL (1)": "000187830000000300000001",
		"Machine Name: cli":                     "00000003636c6900",
		"UID: 0":                                "00000000",
		"Flavor: AUTH_NULL (0), Length: 0":      "0000000000000000",
		"FileHandle: 0100010000000000":          "0100010000000000",
		"Mask: 0x0000000c":                      "0000000c",
		"1... .... = Acknowledge Request: True": "",
		"..00 .... = Pad Count: 0":              "",
	} {
		l := find(text)
		if l.End <= l.Start || want != "" && bytesOf(l) != want {
			t.Errorf("%q shows bytes [%d,%d) %s, want %s", text, l.Start, l.End, bytesOf(l), want)
		}
	}
	if l := find("1... .... = Acknowledge Request: True"); l.End-l.Start != 1 || data[l.Start]&0x80 == 0 {
		t.Errorf("the AckReq flag shows [%d,%d)", l.Start, l.End)
	}
	find("Auxiliary GIDs (0)")
	find("NFSACL, Procedure: GETACL")
	find("fhandle (length: 8, hash (CRC-32): 0x62d40c52)")
}

// ColumnsOf holds the same text as the line, column by column.
func TestColumnsMatchTheLine(t *testing.T) {
	x := openDone(t, testutil.Capture(t, "nfs3-rdma.pcap"))
	for _, i := range []int{0, 3, 75, 78} {
		c := x.Columns(i)
		line := strings.Fields(x.Summary(i))
		got := []string{c.Time, c.Source, "→", c.Destination, c.Protocol, c.Length}
		if strings.Join(line[1:7], " ") != strings.Join(got, " ") || !strings.HasSuffix(x.Summary(i), c.Info) || c.Info == "" {
			t.Errorf("packet %d: columns %q, line %q", i, got, x.Summary(i))
		}
	}
}
