package nfsd

// The client side of the NFS calls the lab's presets make: the RPC call
// messages an NFSv3 client would send, before RPC-over-RDMA chunking.

import (
	"github.com/rdmalab/rdmalab/proto/nfs"
	"github.com/rdmalab/rdmalab/proto/oncrpc"
)

func callHeader(proc nfs.Proc3) []byte {
	cred := oncrpc.AuthSysParams{MachineName: "client", UID: 0, GID: 0}
	h := oncrpc.CallHeader{XID: 0, RPCVers: oncrpc.RPCVersion, Prog: nfs.ProgNFS, Vers: 3, Proc: uint32(proc),
		Cred: cred.Auth(), Verf: oncrpc.OpaqueAuth{Flavor: oncrpc.AuthNone}}
	// Room for the arguments of every call but a WRITE's inline data: the
	// header would otherwise grow word by word.
	return h.AppendTo(make([]byte, 0, 256))
}

// NullCall is an NFSv3 NULL call.
func NullCall() []byte { return callHeader(nfs.Proc3Null) }

// WriteCall is an NFSv3 WRITE of data at offset; dataPos is where the
// data bytes begin (the Read chunk's XDR position).
func WriteCall(fh []byte, offset uint64, data []byte) (msg []byte, dataPos int) {
	a := nfs.Write3Args{File: fh, Offset: offset, Count: uint32(len(data)), Stable: nfs.FileSync, Data: data}
	hdr := callHeader(nfs.Proc3Write)
	buf := make([]byte, len(hdr), len(hdr)+len(fh)+len(data)+32)
	copy(buf, hdr)
	return a.AppendTo(buf, nfs.DataInline)
}

// WriteCallReduced is an NFSv3 WRITE whose data travels in a Read chunk:
// the message stops after the data's length word (the reduced stream of
// RFC 8166 §3.4.5), and dataPos is the chunk's XDR position.
func WriteCallReduced(fh []byte, offset uint64, n int) (msg []byte, dataPos int) {
	a := nfs.Write3Args{File: fh, Offset: offset, Count: uint32(n), Stable: nfs.FileSync, DataLen: uint32(n)}
	return a.AppendTo(callHeader(nfs.Proc3Write), nfs.DataReduced)
}

// ReadCall is an NFSv3 READ of count bytes at offset.
func ReadCall(fh []byte, offset uint64, count uint32) []byte {
	a := nfs.Read3Args{File: fh, Offset: offset, Count: count}
	return a.AppendTo(callHeader(nfs.Proc3Read))
}

// ReaddirCall is an NFSv3 READDIR asking for up to count bytes of entries.
func ReaddirCall(fh []byte, count uint32) []byte {
	a := nfs.ReadDir3Args{Dir: fh, Count: count}
	return a.AppendTo(callHeader(nfs.Proc3ReadDir))
}

// GetattrCall is an NFSv3 GETATTR.
func GetattrCall(fh []byte) []byte {
	a := nfs.GetAttr3Args{Object: fh}
	return a.AppendTo(callHeader(nfs.Proc3GetAttr))
}
