package ib

import (
	"fmt"

	"github.com/google/gopacket"
)

// DecodeError reports why a layer could not be decoded: the layer, the
// byte offset in the data the layer was given, and what is wrong. The
// capture decoder adds the frame number and the layer's offset in the
// frame.
type DecodeError struct {
	Layer  string // "BTH", "RETH", ...
	Offset int    // in the layer's input
	Msg    string
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("%s: offset %d: %s", e.Layer, e.Offset, e.Msg)
}

// errShort reports a header shorter than its fixed length and marks the
// packet truncated.
func errShort(df gopacket.DecodeFeedback, layer string, need, have int) error {
	df.SetTruncated()
	return &DecodeError{Layer: layer, Offset: have, Msg: fmt.Sprintf("need %d bytes, have %d", need, have)}
}

func errAt(layer string, off int, format string, args ...any) error {
	return &DecodeError{Layer: layer, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// decodingLayerPtr is a pointer to a layer struct E.
type decodingLayerPtr[E any] interface {
	*E
	gopacket.DecodingLayer
	gopacket.Layer
}

// decodeLayer is the registry decoder of a layer that needs nothing but
// its bytes: decode, and only on success add the layer and go on.
func decodeLayer[E any, P decodingLayerPtr[E]](data []byte, p gopacket.PacketBuilder) error {
	l := P(new(E))
	if err := l.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(l)
	return p.NextDecoder(l.NextLayerType())
}
