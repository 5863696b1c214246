package kernel

// fs/nfsd (nfs3proc.c, nfs3xdr.c, nfscache.c, vfs.c): the NFSv3 server.
var (
	Nfs3svcDecodeWriteargs = declare("nfs3svc_decode_writeargs", "decode a WRITE's arguments")
	NfsdWrite              = declare("nfsd_write", "the WRITE's data reaches the file", "count", "file", "offset")
	NfsdRead               = declare("nfsd_read", "a READ's data is read from the file", "count", "data_at", "file", "offset")
	NfsdSpliceActor        = declare("nfsd_splice_actor", "splice the file's pages into the reply")
	NfsdCantEncodeErr      = declare("nfsd_cant_encode_err", "trace point: the reply cannot be encoded")
	NfsdReaddir            = declare("nfsd_readdir", "READDIR's entries are encoded", "bytes", "entries")
	NfsdCacheLookup        = declare("nfsd_cache_lookup", "look the XID up in the reply cache")
	NfsdCacheEvict         = declare("nfsd_cache_evict", "a reply cache entry is evicted", "acked_pos", "pos", "xid")
	NfsdCachePrune         = declare("nfsd_cache_prune", "the reply cache drops its oldest entry", "entries", "xid")
	NfsdCacheUpdate        = declare("nfsd_cache_update", "the reply cache records the call", "inflight", "xid")
	NfsdCacheReplySent     = declare("nfsd_cache_reply_sent", "the reply cache entry gets its reply's position", "c_pos", "xid")
)
