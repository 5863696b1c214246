package oncrpc

import (
	"errors"
	"reflect"
	"testing"

	"github.com/rdmalab/rdmalab/proto/xdr"
)

// checkErr fails unless err is an *xdr.Error from this layer with an offset
// inside an input of n bytes.
func checkErr(t *testing.T, err error, n int) {
	t.Helper()
	var xe *xdr.Error
	if !errors.As(err, &xe) || xe.Layer != layer || xe.Offset < 0 || xe.Offset > n {
		t.Fatalf("error %v (%T) is not an oncrpc *xdr.Error inside %d bytes", err, err, n)
	}
}

// FuzzMessage decodes any input as a call, a reply and an AUTH_SYS body:
// no panics, errors carry offsets inside the input, and whatever decodes
// encodes to as many bytes and decodes again to the same value.
func FuzzMessage(f *testing.F) {
	f.Add(writeCall)
	f.Add(readReply)
	f.Add(words(1, 1, 1, 0, 2, 2))
	f.Add(words(1, 1, 0, 1, 0, 2, 3, 4))
	f.Add((&AuthSysParams{MachineName: "m", GIDs: []uint32{1, 2}}).AppendTo(nil))
	f.Fuzz(func(t *testing.T, in []byte) {
		var c CallHeader
		if n, err := c.Decode(in); err != nil {
			checkErr(t, err, len(in))
		} else {
			b := c.AppendTo(nil)
			var again CallHeader
			if len(b) != n || n != c.Len() {
				t.Fatalf("call: decoded %d bytes, encodes to %d, Len %d", n, len(b), c.Len())
			}
			if _, err := again.Decode(b); err != nil || !reflect.DeepEqual(again, c) {
				t.Fatalf("call: %+v → %+v, %v", c, again, err)
			}
		}
		var r ReplyHeader
		if n, err := r.Decode(in); err != nil {
			checkErr(t, err, len(in))
		} else {
			b := r.AppendTo(nil)
			var again ReplyHeader
			if len(b) != n || n != r.Len() {
				t.Fatalf("reply: decoded %d bytes, encodes to %d, Len %d", n, len(b), r.Len())
			}
			if _, err := again.Decode(b); err != nil || !reflect.DeepEqual(again, r) {
				t.Fatalf("reply: %+v → %+v, %v", r, again, err)
			}
		}
		var p AuthSysParams
		if err := p.Decode(in); err != nil {
			checkErr(t, err, len(in))
		} else {
			var again AuthSysParams
			if err := again.Decode(p.AppendTo(nil)); err != nil || !reflect.DeepEqual(again, p) {
				t.Fatalf("AUTH_SYS: %+v → %+v, %v", p, again, err)
			}
		}
	})
}
