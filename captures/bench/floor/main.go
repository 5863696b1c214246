// Command floor does the least any decoder of a RoCEv2 capture must do:
// it reads every record, parses Ethernet, IPv4 and UDP down to the BTH,
// and checks every ICRC, on one goroutine, printing only the counts:
//
//	go run ./captures/bench/floor FILE
//
// Its rate is the machine's floor for a decoder (issue 13): what
// captures/bench/compare.sh sets every decode mode's rate against, in the
// same rounds, so that "within 1.5x of the floor" is measured on the host
// as it is at the time, not against a number from another day.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stderr, "usage: floor FILE")
		return 2
	}
	c, err := count(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "floor: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "floor: %s: %d frames, %d RoCEv2 (%d with a bad ICRC), %d other\n",
		args[0], c.frames, c.roce, c.badICRC, c.other)
	return 0
}

// counts is what count found.
type counts struct {
	frames  int // records read
	roce    int // Ethernet, IPv4, UDP to port 4791 and a whole BTH
	badICRC int // of those, the ones whose ICRC does not match
	other   int // the rest
}

// count reads the capture at path and counts its frames.
func count(path string) (counts, error) {
	var c counts
	r, err := pcapfile.Open(path)
	if err != nil {
		var pe *pcapfile.Error
		if errors.As(err, &pe) { // a bad header; os errors name the path already
			return c, fmt.Errorf("%s: %w", path, err)
		}
		return c, err
	}
	defer r.Close()
	var (
		rec pcapfile.Record
		p   parser
		crc ib.Checker
	)
	for {
		err := r.Next(&rec)
		if errors.Is(err, io.EOF) {
			return c, nil
		}
		if err != nil {
			return c, fmt.Errorf("%s: %w", path, err) // the frame and byte offset
		}
		c.frames++
		if rec.LinkType != pcapfile.LinkTypeEthernet || !p.roce(rec.Data) {
			c.other++
			continue
		}
		c.roce++
		if sum, err := crc.RoCEv2ICRC(p.ipPacket()); err != nil || sum != p.bth.ICRC {
			c.badICRC++
		}
	}
}

// parser holds the layers a frame decodes into, reused frame after frame.
type parser struct {
	eth layers.Ethernet
	ip4 layers.IPv4
	udp layers.UDP
	bth ib.BTH
}

// roce parses data as Ethernet, IPv4, UDP to port 4791 and a BTH, and
// reports whether it is all of them.
func (p *parser) roce(data []byte) bool {
	df := gopacket.NilDecodeFeedback
	return p.eth.DecodeFromBytes(data, df) == nil && p.eth.EthernetType == layers.EthernetTypeIPv4 &&
		p.ip4.DecodeFromBytes(p.eth.Payload, df) == nil && p.ip4.Protocol == layers.IPProtocolUDP &&
		p.udp.DecodeFromBytes(p.ip4.Payload, df) == nil && p.udp.DstPort == ib.UDPPortRoCEv2 &&
		p.bth.DecodeFromBytes(p.udp.Payload, df) == nil
}

// ipPacket is the IPv4 packet roce decoded, without what follows it in
// the frame (an FCS, padding): the bytes the ICRC covers.
func (p *parser) ipPacket() []byte {
	return p.eth.Payload[:len(p.ip4.Contents)+len(p.ip4.Payload)]
}
