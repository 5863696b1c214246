package ib

import (
	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// rdmalab numbers its gopacket layer types from 1000 to 1099 (gopacket
// reserves 0–999 and makes 1000–1999 its fast range; layertype.go).
// Package ib uses 1000–1023; the rest of the block is free for rdmalab.
const layerTypeBase = 1000

// Layer types of this package, registered in init.
var (
	LayerTypeLRH          gopacket.LayerType
	LayerTypeGRH          gopacket.LayerType
	LayerTypeBTH          gopacket.LayerType
	LayerTypeRDETH        gopacket.LayerType
	LayerTypeDETH         gopacket.LayerType
	LayerTypeRETH         gopacket.LayerType
	LayerTypeAtomicETH    gopacket.LayerType
	LayerTypeAETH         gopacket.LayerType
	LayerTypeAtomicAckETH gopacket.LayerType
	LayerTypeImmDt        gopacket.LayerType
	LayerTypeIETH         gopacket.LayerType
	LayerTypeXRCETH       gopacket.LayerType
	LayerTypeFETH         gopacket.LayerType
	LayerTypeRWH          gopacket.LayerType
	LayerTypeMAD          gopacket.LayerType
	LayerTypeCMReq        gopacket.LayerType
	LayerTypeCMRep        gopacket.LayerType
	LayerTypeCMRtu        gopacket.LayerType
	LayerTypeCMRej        gopacket.LayerType
	LayerTypeCMDreq       gopacket.LayerType
	LayerTypeCMDrep       gopacket.LayerType
	LayerTypeIPoIB        gopacket.LayerType
	LayerTypeERF          gopacket.LayerType
	LayerTypeLinuxSLL2    gopacket.LayerType
)

// EndpointLID is the endpoint type of an InfiniBand local identifier.
var EndpointLID gopacket.EndpointType

// Link types this package decodes (tcpdump.org link-layer header types).
// LinkTypeLinuxSLL2 does not fit gopacket's 8-bit layers.LinkType; callers
// choose the first layer from the 32-bit value themselves (FirstLayer).
const (
	LinkTypeERF        = 197
	LinkTypeInfiniBand = 247
	LinkTypeLinuxSLL2  = 276
)

// UDPPortRoCEv2 is the IANA port of RoCEv2 (Annex A17.2.1). Only the
// destination port identifies RoCEv2: the source port carries entropy.
const UDPPortRoCEv2 = 4791

// EthernetTypeRoCEv1 is the EtherType of RoCEv1 (Annex A16.4).
const EthernetTypeRoCEv1 layers.EthernetType = 0x8915

func register(n int, name string, dec gopacket.DecodeFunc) gopacket.LayerType {
	return gopacket.RegisterLayerType(layerTypeBase+n, gopacket.LayerTypeMetadata{Name: name, Decoder: dec})
}

func init() {
	LayerTypeLRH = register(0, "LRH", decodeLRH)
	LayerTypeGRH = register(1, "GRH", decodeGRH)
	LayerTypeBTH = register(2, "BTH", decodeBTH)
	LayerTypeRDETH = register(3, "RDETH", decodeLayer[RDETH])
	LayerTypeDETH = register(4, "DETH", decodeLayer[DETH])
	LayerTypeRETH = register(5, "RETH", decodeLayer[RETH])
	LayerTypeAtomicETH = register(6, "AtomicETH", decodeLayer[AtomicETH])
	LayerTypeAETH = register(7, "AETH", decodeLayer[AETH])
	LayerTypeAtomicAckETH = register(8, "AtomicAckETH", decodeLayer[AtomicAckETH])
	LayerTypeImmDt = register(9, "ImmDt", decodeLayer[ImmDt])
	LayerTypeIETH = register(10, "IETH", decodeLayer[IETH])
	LayerTypeXRCETH = register(11, "XRCETH", decodeLayer[XRCETH])
	LayerTypeFETH = register(12, "FETH", decodeLayer[FETH])
	LayerTypeRWH = register(13, "RWH", decodeRWH)
	LayerTypeMAD = register(14, "MAD", decodeMAD)
	LayerTypeCMReq = register(15, "CMReq", decodeLayer[CMReq])
	LayerTypeCMRep = register(16, "CMRep", decodeLayer[CMRep])
	LayerTypeCMRtu = register(17, "CMRtu", decodeLayer[CMRtu])
	LayerTypeCMRej = register(18, "CMRej", decodeLayer[CMRej])
	LayerTypeCMDreq = register(19, "CMDreq", decodeLayer[CMDreq])
	LayerTypeCMDrep = register(20, "CMDrep", decodeLayer[CMDrep])
	LayerTypeIPoIB = register(21, "IPoIB", decodeIPoIB)
	LayerTypeERF = register(22, "ERF", decodeERF)
	LayerTypeLinuxSLL2 = register(23, "LinuxSLL2", decodeLinuxSLL2)

	EndpointLID = gopacket.RegisterEndpointType(layerTypeBase,
		gopacket.EndpointTypeMetadata{Name: "LID", Formatter: formatLID})

	layers.RegisterUDPPortLayerType(UDPPortRoCEv2, LayerTypeBTH)
	layers.EthernetTypeMetadata[EthernetTypeRoCEv1] = layers.EnumMetadata{
		DecodeWith: LayerTypeGRH, Name: "RoCEv1", LayerType: LayerTypeGRH}
	layers.LinkTypeMetadata[LinkTypeERF] = layers.EnumMetadata{
		DecodeWith: LayerTypeERF, Name: "ERF", LayerType: LayerTypeERF}
	layers.LinkTypeMetadata[LinkTypeInfiniBand] = layers.EnumMetadata{
		DecodeWith: LayerTypeLRH, Name: "InfiniBand", LayerType: LayerTypeLRH}
}
