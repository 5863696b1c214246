package netlayer

import (
	"math/rand"
	"reflect"
	"testing"

	"github.com/google/gopacket/layers"
)

// Where gopacket decodes an SLL or ARP header without panicking, and its
// arithmetic does not wrap, the checked layers decode the same fields.
func TestLinkLayersAsGopacket(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var fb truncFlag
	for i := 0; i < 20000; i++ {
		b := make([]byte, r.Intn(64))
		r.Read(b)
		if len(b) > 5 {
			b[4], b[5] = byte(r.Intn(12)), byte(r.Intn(12))
		}
		var g layers.LinuxSLL
		var l LinuxSLL
		if ok(func() error { return g.DecodeFromBytes(b, &fb) }) && len(b) > 5 && b[4] == 0 && b[5] <= sllAddrMax {
			if l.DecodeFromBytes(b, &fb) != nil || !reflect.DeepEqual(l.LinuxSLL, g) {
				t.Fatalf("SLL %x: %+v, gopacket %+v", b, l.LinuxSLL, g)
			}
		}
		var ga layers.ARP
		var la ARP
		if ok(func() error { return ga.DecodeFromBytes(b, &fb) }) {
			if la.DecodeFromBytes(b, &fb) != nil || !reflect.DeepEqual(la.ARP, ga) {
				t.Fatalf("ARP %x: %+v, gopacket %+v", b, la.ARP, ga)
			}
		}
	}
}

// ok runs a decode and says whether it returned nil without panicking.
func ok(f func() error) (good bool) {
	defer func() {
		if recover() != nil {
			good = false
		}
	}()
	return f() == nil
}
