package rpcrdma

import (
	"bytes"
	"errors"
	"testing"
)

// fuzzOptions are the option sets every fuzz input is decoded with: the
// capture decoder's (none), and the 2025 and 2026 kernels'.
var fuzzOptions = []DecodeOptions{
	{},
	KernelOptions(8, 4096, false),
	KernelOptions(8, 4096, true),
}

// FuzzHeaderDecode checks that Decode never panics, that its errors are
// *DecodeError values with an offset inside the input, and that a header it
// accepts encodes to as many bytes as it consumed and decodes again, under
// the same options, to an equal header (decode → encode → decode is
// stable). It also decodes into a reused Header and compares.
func FuzzHeaderDecode(f *testing.F) {
	for _, seed := range [][]byte{frame86, frame40, frame69, msgpFixture, errVersFixture, errChunkFixture,
		benchHeaders["busy"], words(xid, 1, 64, 3), words(xid, 1, 64, 0, 0, 1, 0, 0, 0)} {
		f.Add(seed)
	}
	var reused Header
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, opt := range fuzzOptions {
			var h Header
			n, err := h.Decode(in, opt)
			if err != nil {
				var de *DecodeError
				if !errors.As(err, &de) {
					t.Fatalf("error %v is a %T, not a *DecodeError", err, err)
				}
				if de.Offset < 0 || de.Offset > len(in) || de.Kind == 0 || de.Field == "" {
					t.Fatalf("error %+v: offset outside the %d-byte input, or no kind or field", de, len(in))
				}
				if n != 0 {
					t.Fatalf("n = %d with an error", n)
				}
				if _, err2 := reused.Decode(in, opt); err2 == nil || err2.Error() != err.Error() {
					t.Fatalf("reused Header: %v, fresh: %v", err2, err)
				}
				continue
			}
			if n > len(in) || n != h.Len() {
				t.Fatalf("n = %d, Len = %d, input %d bytes", n, h.Len(), len(in))
			}
			enc := h.AppendTo(nil)
			if len(enc) != n {
				t.Fatalf("encoded %d bytes, decoded %d", len(enc), n)
			}
			// Keep the inline body: CheckChunkPositions measures it.
			var again Header
			n2, err := again.Decode(append(enc, in[n:]...), opt)
			if err != nil || n2 != n || !again.Equal(&h) {
				t.Fatalf("decode → encode → decode: n %d→%d, %v\nfirst  %+v\nsecond %+v", n, n2, err, h, again)
			}
			if !bytes.Equal(again.AppendTo(nil), enc) {
				t.Fatal("second encoding differs from the first")
			}
			if _, err := reused.Decode(in, opt); err != nil || !reused.Equal(&h) {
				t.Fatalf("reused Header decodes differently: %v", err)
			}
		}
	})
}
