package decode

import (
	"testing"
	"unsafe"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
)

// An index keeps a Message per RDMA message and a ChunkRef per message
// that lands in a chunk (tens of thousands each in a million frames): the
// order of their fields keeps them without padding. A field added or
// moved that grows them fails here.
func TestStructSizes(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"Message", unsafe.Sizeof(analysis.Message{}), 200},
		{"ChunkRef", unsafe.Sizeof(analysis.ChunkRef{}), 48},
		{"frameRec", unsafe.Sizeof(frameRec{}), 16},
	} {
		if c.got > c.want {
			t.Errorf("%s is %d bytes, more than %d", c.name, c.got, c.want)
		}
	}
}
