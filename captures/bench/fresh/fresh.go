// Package fresh repeats a capture as fresh flows, for timing the traffic
// users capture at a size worth timing: repetition k moves every IPv4
// address into 10.k/16 (k counted from 1; a host keeps its place among
// the capture's hosts) and every IPv6 address's last two bytes to k,
// recomputes the IPv4 header checksum, a non-zero UDP or TCP checksum and
// a RoCEv2 ICRC that was good (a bad one stays bad), and starts a
// millisecond after the previous repetition ended, so that no packet of a
// later repetition reads as a retransmission of an earlier one (which
// would send every packet down the anomaly path, as a naive repetition
// does). Frames of other kinds (ARP, native InfiniBand) are copied as
// they are.
package fresh

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"time"

	"github.com/google/gopacket"

	"github.com/rdmalab/rdmalab/internal/atomicfile"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

type record struct {
	ci   time.Time
	wire int
	data []byte
}

// Stats is what a repetition wrote.
type Stats struct {
	Frames      int // frames written
	Repetitions int // times the capture was written
	AsIs        int // frames copied unchanged (not IP)
}

// RepeatFile writes the capture at in, repeated as fresh flows until it
// holds n frames or more, to out as a classic pcap (atomically).
func RepeatFile(out, in string, n int) (Stats, error) {
	r, err := pcapfile.Open(in)
	if err != nil {
		return Stats{}, err
	}
	defer r.Close()
	if r.LinkType() != pcapfile.LinkTypeEthernet {
		return Stats{}, fmt.Errorf("%s: link type %v: only Ethernet captures are repeated", in, r.LinkType())
	}
	var recs []record
	var rec pcapfile.Record
	for {
		if err := r.Next(&rec); err == io.EOF {
			break
		} else if err != nil {
			return Stats{}, err
		}
		recs = append(recs, record{rec.Info.Timestamp, rec.Info.Length, append([]byte(nil), rec.Data...)})
	}
	if len(recs) == 0 {
		return Stats{}, fmt.Errorf("%s: no frames", in)
	}
	f, err := atomicfile.Create(out)
	if err != nil {
		return Stats{}, err
	}
	st, err := write(f, recs, n)
	if err != nil {
		f.Abort()
		return st, err
	}
	return st, f.Commit()
}

func write(w io.Writer, recs []record, n int) (Stats, error) {
	pw, err := pcapfile.NewWriter(w, pcapfile.LinkTypeEthernet, 262144)
	if err != nil {
		return Stats{}, err
	}
	span := recs[len(recs)-1].ci.Sub(recs[0].ci) + time.Millisecond
	hosts := map[netip.Addr]int{}
	var st Stats
	buf := make([]byte, 0, 9000)
	for k := 1; st.Frames < n; k++ {
		if k >= 1<<16 {
			return st, errors.New("more than 65535 repetitions: repeat a bigger capture")
		}
		st.Repetitions = k
		shift := time.Duration(k-1) * span
		for _, r := range recs {
			buf = append(buf[:0], r.data...)
			if !rewrite(buf, k, hosts) {
				st.AsIs++
			}
			ci := gopacket.CaptureInfo{Timestamp: r.ci.Add(shift), CaptureLength: len(buf), Length: r.wire}
			if err := pw.WritePacket(ci, buf); err != nil {
				return st, err
			}
			st.Frames++
		}
	}
	return st, nil
}

// rewrite moves frame's addresses into repetition k and mends its
// checksums and ICRC; it reports false for a frame it left as it was.
func rewrite(frame []byte, k int, hosts map[netip.Addr]int) bool {
	if len(frame) < 14 {
		return false
	}
	et, off := binary.BigEndian.Uint16(frame[12:]), 14
	if et == 0x8100 && len(frame) >= 18 { // one VLAN tag
		et, off = binary.BigEndian.Uint16(frame[16:]), 18
	}
	pkt := frame[off:]
	var ihl, proto int
	switch {
	case et == 0x0800 && len(pkt) >= 20 && pkt[0]>>4 == 4:
		ihl, proto = int(pkt[0]&0xf)*4, int(pkt[9])
		if ihl < 20 || len(pkt) < ihl {
			return false
		}
		if tot := int(binary.BigEndian.Uint16(pkt[2:])); tot >= ihl && tot <= len(pkt) {
			pkt = pkt[:tot]
		}
	case et == 0x86dd && len(pkt) >= 40 && pkt[0]>>4 == 6:
		ihl, proto = 40, int(pkt[6])
		if end := 40 + int(binary.BigEndian.Uint16(pkt[4:])); end <= len(pkt) {
			pkt = pkt[:end]
		}
	default:
		return false
	}
	l4 := pkt[ihl:]
	roce := proto == 17 && len(l4) >= 8+ib.BTHLen+ib.ICRCLen && binary.BigEndian.Uint16(l4[2:]) == 4791
	icrcGood := false
	if roce {
		c, err := ib.RoCEv2ICRC(pkt)
		icrcGood = err == nil && c == ib.ICRCAt(pkt)
	}
	ipGood := ihl == 40 || checksum(0, pkt[:ihl]) == 0xffff
	l4Good := l4ChecksumGood(pkt, ihl, proto)

	if ihl == 40 {
		for _, a := range [][]byte{pkt[8:24], pkt[24:40]} {
			binary.BigEndian.PutUint16(a[14:], uint16(k))
		}
	} else {
		for _, a := range [][]byte{pkt[12:16], pkt[16:20]} {
			ip := netip.AddrFrom4([4]byte(a))
			h, ok := hosts[ip]
			if !ok {
				h = len(hosts)%254 + 1
				hosts[ip] = h
			}
			copy(a, []byte{10, byte(k >> 8), byte(k), byte(h)})
		}
		if ipGood {
			pkt[10], pkt[11] = 0, 0
			binary.BigEndian.PutUint16(pkt[10:], ^checksum(0, pkt[:ihl]))
		}
	}
	if l4Good {
		setL4Checksum(pkt, ihl, proto)
	}
	if icrcGood {
		_ = ib.SetRoCEv2ICRC(pkt)
	}
	return true
}

// checksum is the Internet checksum's running one's-complement sum.
func checksum(sum uint32, b []byte) uint16 {
	for len(b) >= 2 {
		sum += uint32(binary.BigEndian.Uint16(b))
		b = b[2:]
	}
	if len(b) == 1 {
		sum += uint32(b[0]) << 8
	}
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	return uint16(sum)
}

// pseudo is the sum of the IP pseudo-header of pkt's UDP or TCP segment.
func pseudo(pkt []byte, ihl, proto int) uint32 {
	var sum uint32
	n := len(pkt) - ihl
	if ihl == 40 {
		sum = uint32(checksum(0, pkt[8:40]))
	} else {
		sum = uint32(checksum(0, pkt[12:20]))
	}
	return sum + uint32(proto) + uint32(n>>16) + uint32(n&0xffff)
}

// l4Offset is where the checksum of a UDP or TCP header sits, or -1.
func l4Offset(pkt []byte, ihl, proto int) int {
	switch {
	case proto == 17 && len(pkt) >= ihl+8:
		return 6
	case proto == 6 && len(pkt) >= ihl+20:
		return 16
	}
	return -1
}

// l4ChecksumGood reports whether a UDP or TCP checksum is there (UDP's
// zero is none) and right.
func l4ChecksumGood(pkt []byte, ihl, proto int) bool {
	at := l4Offset(pkt, ihl, proto)
	if at < 0 || proto == 17 && binary.BigEndian.Uint16(pkt[ihl+at:]) == 0 {
		return false
	}
	return checksum(pseudo(pkt, ihl, proto), pkt[ihl:]) == 0xffff
}

func setL4Checksum(pkt []byte, ihl, proto int) {
	at := ihl + l4Offset(pkt, ihl, proto)
	pkt[at], pkt[at+1] = 0, 0
	c := ^checksum(pseudo(pkt, ihl, proto), pkt[ihl:])
	if c == 0 && proto == 17 {
		c = 0xffff
	}
	binary.BigEndian.PutUint16(pkt[at:], c)
}
