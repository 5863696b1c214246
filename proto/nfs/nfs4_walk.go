package nfs

// Walking over NFSv4 operation arguments and results (RFC 8881 §18, RFC
// 7862 §15, RFC 8276 §8.4) to find the next operation. The shared pieces:
//
//	stateid4        | seqid | other (12) |                        16 bytes
//	bitmap4         | count | count words |
//	fattr4          | bitmap4 | attrlist length | attrlist + pad |
//	change_info4    | atomic | before (8) | after (8) |           20 bytes
//	nfstime4        | seconds (8) | nseconds |                    12 bytes
//	lock_owner4     | clientid (8) | owner length | owner + pad |
//	nfs_impl_id4<1> | count | domain | name | date (nfstime4) |
//	channel_attrs4  | 6 words | rdma_ird count (<= 1) | words |

import "github.com/rdmalab/rdmalab/proto/xdr"

// walker is the XDR walker with what NFSv4 adds: the strings it records
// for Fields, and the shapes the operations share.
type walker struct {
	xdr.Walker
	strs *[]StringField // where text records strings, when not nil
}

func newWalker(b []byte, strs *[]StringField) walker {
	return walker{Walker: xdr.NewWalker(b), strs: strs}
}

// opaque reads an opaque<> without a bound, as most NFSv4 items are.
func (w *walker) opaque(field string) []byte { return w.OpaqueVar(xdr.NoLimit, field) }

func (w *walker) str(field string) string { return string(w.opaque(field)) }

// text reads a string and records it under Wireshark's fields ws.
func (w *walker) text(field string, ws ...string) string {
	b := w.opaque(field)
	if w.Err() != nil || w.strs == nil {
		return string(b)
	}
	v := string(b)
	for _, f := range ws {
		*w.strs = append(*w.strs, StringField{Field: f, Value: v})
	}
	return v
}

// tag records a COMPOUND's tag, an empty one too: Wireshark shows nfs.tag
// on every NFSv4 call and reply.
func (w *walker) tag(tag []byte) {
	if w.strs != nil {
		*w.strs = append(*w.strs, StringField{Field: fieldTag, Value: string(tag)})
	}
}

func (w *walker) stateid(field string) StateID4 { return decodeStateID(&w.Walker, field) }

// count reads an array count; limit (unless NoLimit) bounds it.
func (w *walker) count(field string, limit int) uint32 {
	off := w.Offset()
	n := w.Uint32(field)
	if w.Err() == nil && limit >= 0 && uint64(n) > uint64(limit) {
		w.Failf(off, field, "%s %d exceeds maximum %d", field, n, limit)
	}
	return n
}

// words skips an array of n fixed-size items of size bytes each.
func (w *walker) words(field string, size int) {
	n := w.count(field+" count", xdr.NoLimit)
	if w.Err() == nil {
		if uint64(n)*uint64(size) > uint64(w.Len()) {
			w.Need(w.Len()+1, field)
			return
		}
		w.Skip(int(n)*size, field)
	}
}

func (w *walker) bitmap(field string) { w.words(field, 4) }

func (w *walker) fattr(field string) {
	w.bitmap(field + " attrmask")
	w.opaque(field + " attr_vals")
}

// rdattrError walks a fattr4 and returns its rdattr_error (attribute 11)
// when the mask holds it: the attributes before it have fixed sizes but
// the first, supported_attrs, a bitmap4.
func (w *walker) rdattrError(field string) (Status4, bool) {
	n := w.count(field+" attrmask count", xdr.NoLimit)
	if w.Err() != nil || uint64(n)*4 > uint64(w.Len()) {
		w.Need(w.Len()+1, field+" attrmask")
		return 0, false
	}
	var mask0 uint32
	for i := uint32(0); i < n; i++ {
		m := w.Uint32(field + " attrmask")
		if i == 0 {
			mask0 = m
		}
	}
	vals := w.OpaqueVar(xdr.NoLimit, field+" attr_vals")
	if w.Err() != nil || mask0&(1<<11) == 0 {
		return 0, false
	}
	v := xdr.NewWalker(vals)
	// supported_attrs, type, fh_expire_type, change, size, link_support,
	// symlink_support, named_attr, fsid, unique_handles, lease_time.
	sizes := [...]int{-1, 4, 4, 8, 8, 4, 4, 4, 16, 4, 4}
	for bit, size := range sizes {
		if mask0&(1<<bit) == 0 {
			continue
		}
		if size < 0 {
			k := v.Uint32("supported_attrs count")
			if uint64(k)*4 > uint64(v.Len()) {
				return 0, false
			}
			size = int(k) * 4
		}
		v.Skip(size, "fattr4")
	}
	st := Status4(v.Uint32("rdattr_error"))
	return st, v.Err() == nil
}

func (w *walker) changeInfo() { w.Skip(20, "change_info4") }

func (w *walker) nfstime() { w.Skip(12, "nfstime4") }

func (w *walker) lockOwner() {
	w.Uint64("clientid")
	w.opaque("owner")
}

func (w *walker) each(field string, limit int, item func()) {
	n := w.count(field+" count", limit)
	for i := uint32(0); i < n && w.Err() == nil; i++ {
		item()
	}
}

func (w *walker) implID() {
	w.each("nfs_impl_id4", 1, func() {
		w.opaque("nii_domain")
		w.opaque("nii_name")
		w.nfstime()
	})
}

func (w *walker) channelAttrs() {
	w.Skip(24, "channel_attrs4")
	w.each("ca_rdma_ird", 1, func() { w.Uint32("ca_rdma_ird") })
}

func (w *walker) stateProtectOps() {
	w.bitmap("spo_must_enforce")
	w.bitmap("spo_must_allow")
}

// bad records an unknown discriminant of a union.
func (w *walker) bad(off int, field string, v uint32) {
	w.Failf(off, field, "%s %d is not a known value", field, v)
}

// union reads a discriminant and returns it with its offset.
func (w *walker) union(field string) (uint32, int) {
	off := w.Offset()
	return w.Uint32(field), off
}

func (w *walker) cbSecParms() {
	w.each("csa_sec_parms", xdr.NoLimit, func() {
		flavor, off := w.union("cb_secflavor")
		switch flavor {
		case 0: // AUTH_NONE
		case 1: // AUTH_SYS
			w.Uint32("stamp")
			w.opaque("machinename")
			w.Uint32("uid")
			w.Uint32("gid")
			w.words("gids", 4)
		case 6: // RPCSEC_GSS
			w.Uint32("gcbp_service")
			w.opaque("gcbp_handle_from_server")
			w.opaque("gcbp_handle_from_client")
		default:
			w.bad(off, "cb_secflavor", flavor)
		}
	})
}

func (w *walker) netaddr() {
	w.opaque("r_netid")
	w.opaque("r_addr")
}

func (w *walker) netloc() {
	t, off := w.union("nl_type")
	switch t {
	case 1, 2: // NL4_NAME, NL4_URL
		w.opaque("nl_name")
	case 3: // NL4_NETADDR
		w.netaddr()
	default:
		w.bad(off, "nl_type", t)
	}
}

func (w *walker) ace() {
	w.Skip(12, "nfsace4")
	w.opaque("who")
}

func (w *walker) openDelegation() {
	t, off := w.union("delegation_type")
	switch t {
	case 0: // OPEN_DELEGATE_NONE
	case 1: // OPEN_DELEGATE_READ
		w.stateid("stateid")
		w.Bool("recall")
		w.ace()
	case 2: // OPEN_DELEGATE_WRITE
		w.stateid("stateid")
		w.Bool("recall")
		limit, loff := w.union("limitby")
		switch limit {
		case 1: // NFS_LIMIT_SIZE
			w.Uint64("filesize")
		case 2: // NFS_LIMIT_BLOCKS
			w.Skip(8, "nfs_modified_limit4")
		default:
			w.bad(loff, "limitby", limit)
		}
		w.ace()
	case 3: // OPEN_DELEGATE_NONE_EXT
		why := w.Uint32("ond_why")
		if why == 1 || why == 2 { // WND4_CONTENTION, WND4_RESOURCE
			w.Bool("ond_server_will_push_deleg")
		}
	default:
		w.bad(off, "delegation_type", t)
	}
}

func (w *walker) writeResponse() {
	w.each("wr_callback_id", 1, func() { w.stateid("wr_callback_id") })
	w.Uint64("wr_count")
	w.Uint32("wr_committed")
	w.Skip(8, "wr_writeverf")
}

// args walks the arguments of op.Op, filling op's optional fields.
func (w *walker) args(op *Op4Call, mode DataMode) {
	switch op.Op {
	case Op4Access:
		w.Uint32("access")
	case Op4Close:
		w.Uint32("seqid")
		op.StateID = w.stateid("open_stateid")
	case Op4Commit:
		w.Uint64("offset")
		w.Uint32("count")
	case Op4Create:
		t, off := w.union("objtype")
		switch t {
		case 5: // NF4LNK
			w.text("linkdata", fieldLinkText)
		case 3, 4: // NF4BLK, NF4CHR
			w.Skip(8, "devdata")
		case 1, 2, 6, 7, 8, 9: // REG, DIR, SOCK, FIFO, ATTRDIR, NAMEDATTR
		default:
			w.bad(off, "objtype", t)
		}
		op.Name = w.text("objname", fieldComponent)
		w.fattr("createattrs")
	case Op4DelegPurge, Op4Renew, Op4DestroyClientID:
		w.Uint64("clientid")
	case Op4DelegReturn, Op4FreeStateID, Op4OffloadCancel, Op4OffloadStatus:
		op.StateID = w.stateid("stateid")
	case Op4GetAttr:
		w.bitmap("attr_request")
	case Op4GetFH, Op4LookupP, Op4PutPubFH, Op4PutRootFH, Op4ReadLink, Op4RestoreFH,
		Op4SaveFH, Op4Illegal:
	case Op4Link:
		op.Name = w.text("newname", fieldComponent)
	case Op4Lock:
		w.Uint32("locktype")
		w.Bool("reclaim")
		op.Offset = w.Uint64("offset")
		w.Uint64("length")
		if w.Bool("new_lock_owner") {
			w.Uint32("open_seqid")
			op.StateID = w.stateid("open_stateid")
			w.Uint32("lock_seqid")
			w.lockOwner()
		} else {
			op.StateID = w.stateid("lock_stateid")
			w.Uint32("lock_seqid")
		}
	case Op4LockT:
		w.Uint32("locktype")
		op.Offset = w.Uint64("offset")
		w.Uint64("length")
		w.lockOwner()
	case Op4LockU:
		w.Uint32("locktype")
		w.Uint32("seqid")
		op.StateID = w.stateid("lock_stateid")
		op.Offset = w.Uint64("offset")
		w.Uint64("length")
	case Op4Lookup:
		op.Name = w.text("objname", fieldComponent)
	case Op4NVerify, Op4Verify:
		w.fattr("obj_attributes")
	case Op4Open:
		w.open(op)
	case Op4OpenAttr:
		w.Bool("createdir")
	case Op4OpenConfirm:
		op.StateID = w.stateid("open_stateid")
		w.Uint32("seqid")
	case Op4OpenDowngrade:
		op.StateID = w.stateid("open_stateid")
		w.Uint32("seqid")
		w.Uint32("share_access")
		w.Uint32("share_deny")
	case Op4PutFH:
		op.FH = w.OpaqueVar(128, "object") // NFS4_FHSIZE
	case Op4Read, Op4ReadPlus:
		op.StateID = w.stateid("stateid")
		op.Offset = w.Uint64("offset")
		op.Count = w.Uint32("count")
	case Op4ReadDir:
		w.Uint64("cookie")
		w.Skip(8, "cookieverf")
		w.Uint32("dircount")
		w.Uint32("maxcount")
		w.bitmap("attr_request")
	case Op4Remove:
		op.Name = w.text("target", fieldComponent)
	case Op4Rename:
		op.Name = w.text("oldname", fieldComponent)
		w.text("newname", fieldComponent)
	case Op4SecInfo:
		op.Name = w.text("name", fieldComponent)
	case Op4SetAttr:
		op.StateID = w.stateid("stateid")
		w.fattr("obj_attributes")
	case Op4SetClientID:
		w.Skip(8, "verifier")
		w.opaque("id")
		w.Uint32("cb_program")
		w.netaddr()
		w.Uint32("callback_ident")
	case Op4SetClientIDConfirm:
		w.Uint64("clientid")
		w.Skip(8, "verifier")
	case Op4Write:
		op.StateID = w.stateid("stateid")
		op.Offset = w.Uint64("offset")
		op.Stable = StableHow(w.Uint32("stable"))
		op.Count, op.Data, op.DataPos = decodeData(&w.Walker, mode, "data")
	case Op4ReleaseLockOwner:
		w.lockOwner()
	case Op4BackchannelCtl:
		w.Uint32("cb_program")
		w.cbSecParms()
	case Op4BindConnToSession:
		w.Skip(16, "sessionid")
		w.Uint32("dir")
		w.Bool("use_conn_in_rdma_mode")
	case Op4ExchangeID:
		w.Skip(8, "verifier")
		w.opaque("ownerid")
		w.Uint32("flags")
		how, off := w.union("spa_how")
		switch how {
		case 0: // SP4_NONE
		case 1: // SP4_MACH_CRED
			w.stateProtectOps()
		case 2: // SP4_SSV
			w.stateProtectOps()
			w.each("ssp_hash_algs", xdr.NoLimit, func() { w.opaque("sec_oid4") })
			w.each("ssp_encr_algs", xdr.NoLimit, func() { w.opaque("sec_oid4") })
			w.Uint32("ssp_window")
			w.Uint32("ssp_num_gss_handles")
		default:
			w.bad(off, "spa_how", how)
		}
		w.implID()
	case Op4CreateSession:
		w.Uint64("clientid")
		w.Uint32("sequence")
		w.Uint32("flags")
		w.channelAttrs()
		w.channelAttrs()
		w.Uint32("cb_program")
		w.cbSecParms()
	case Op4DestroySession:
		w.Skip(16, "sessionid")
	case Op4GetDirDelegation:
		w.Bool("signal_deleg_avail")
		w.bitmap("notification_types")
		w.nfstime()
		w.nfstime()
		w.bitmap("child_attributes")
		w.bitmap("dir_attributes")
	case Op4GetDeviceInfo:
		w.Skip(16, "deviceid")
		w.Uint32("layout_type")
		w.Uint32("maxcount")
		w.bitmap("notify_types")
	case Op4GetDeviceList:
		w.Uint32("layout_type")
		w.Uint32("maxdevices")
		w.Uint64("cookie")
		w.Skip(8, "cookieverf")
	case Op4LayoutCommit:
		op.Offset = w.Uint64("offset")
		w.Uint64("length")
		w.Bool("reclaim")
		op.StateID = w.stateid("stateid")
		if w.Bool("no_newoffset") {
			w.Uint64("last_write_offset")
		}
		if w.Bool("nt_timechanged") {
			w.nfstime()
		}
		w.Uint32("layoutupdate type")
		w.opaque("layoutupdate body")
	case Op4LayoutGet:
		w.Bool("signal_layout_avail")
		w.Uint32("layout_type")
		w.Uint32("iomode")
		op.Offset = w.Uint64("offset")
		w.Uint64("length")
		w.Uint64("minlength")
		op.StateID = w.stateid("stateid")
		w.Uint32("maxcount")
	case Op4LayoutReturn:
		w.Bool("reclaim")
		w.Uint32("layout_type")
		w.Uint32("iomode")
		if w.Uint32("returntype") == 1 { // LAYOUTRETURN4_FILE
			op.Offset = w.Uint64("offset")
			w.Uint64("length")
			op.StateID = w.stateid("stateid")
			w.opaque("body")
		}
	case Op4SecInfoNoName:
		w.Uint32("style")
	case Op4Sequence:
		w.Skip(16, "sessionid")
		w.Uint32("sequenceid")
		w.Uint32("slotid")
		w.Uint32("highest_slotid")
		w.Bool("cachethis")
	case Op4SetSSV:
		w.opaque("ssv")
		w.opaque("digest")
	case Op4TestStateID:
		w.words("stateids", 16)
	case Op4WantDelegation:
		w.Uint32("want")
		claim, off := w.union("claim")
		switch claim {
		case 1: // CLAIM_PREVIOUS
			w.Uint32("delegate_type")
		case 4, 6: // CLAIM_FH, CLAIM_DELEG_PREV_FH
		default:
			w.bad(off, "claim", claim)
		}
	case Op4ReclaimComplete:
		w.Bool("one_fs")
	case Op4Allocate, Op4Deallocate:
		op.StateID = w.stateid("stateid")
		op.Offset = w.Uint64("offset")
		w.Uint64("length")
	case Op4Copy:
		op.StateID = w.stateid("src_stateid")
		w.stateid("dst_stateid")
		op.Offset = w.Uint64("src_offset")
		w.Uint64("dst_offset")
		w.Uint64("count")
		w.Bool("consecutive")
		w.Bool("synchronous")
		w.each("src_servers", xdr.NoLimit, w.netloc)
	case Op4CopyNotify:
		op.StateID = w.stateid("src_stateid")
		w.netloc()
	case Op4IOAdvise:
		op.StateID = w.stateid("stateid")
		op.Offset = w.Uint64("offset")
		w.Uint64("count")
		w.bitmap("hints")
	case Op4LayoutError:
		op.Offset = w.Uint64("offset")
		w.Uint64("length")
		op.StateID = w.stateid("stateid")
		w.words("errors", 24)
	case Op4LayoutStats:
		op.Offset = w.Uint64("offset")
		w.Uint64("length")
		op.StateID = w.stateid("stateid")
		w.Skip(32, "io_info4 read and write")
		w.Skip(16, "deviceid")
		w.Uint32("layoutupdate type")
		w.opaque("layoutupdate body")
	case Op4Seek:
		op.StateID = w.stateid("stateid")
		op.Offset = w.Uint64("offset")
		w.Uint32("what")
	case Op4WriteSame:
		op.StateID = w.stateid("stateid")
		op.Stable = StableHow(w.Uint32("stable"))
		op.Offset = w.Uint64("adb_offset")
		w.Skip(24, "app_data_block4")
		w.Uint32("adb_block_num")
		w.Uint64("adb_reloff_pattern")
		w.opaque("adb_pattern")
	case Op4Clone:
		op.StateID = w.stateid("src_stateid")
		w.stateid("dst_stateid")
		op.Offset = w.Uint64("src_offset")
		w.Uint64("dst_offset")
		w.Uint64("count")
	case Op4GetXattr, Op4RemoveXattr:
		op.Name = w.str("name")
	case Op4SetXattr:
		w.Uint32("option")
		op.Name = w.str("name")
		w.opaque("value")
	case Op4ListXattrs:
		w.Uint64("cookie")
		w.Uint32("maxcount")
	default:
		w.Failf(op.Pos, "argop", "cannot walk the arguments of %s", op.Op)
	}
}

func (w *walker) open(op *Op4Call) {
	w.Uint32("seqid")
	w.Uint32("share_access")
	w.Uint32("share_deny")
	w.lockOwner()                  // open_owner4 has the same shape
	if w.Uint32("opentype") == 1 { // OPEN4_CREATE
		mode, off := w.union("createmode")
		switch mode {
		case 0, 1: // UNCHECKED4, GUARDED4
			w.fattr("createattrs")
		case 2: // EXCLUSIVE4
			w.Skip(8, "createverf")
		case 3: // EXCLUSIVE4_1
			w.Skip(8, "createverf")
			w.fattr("createattrs")
		default:
			w.bad(off, "createmode", mode)
		}
	}
	claim, off := w.union("claim")
	switch claim {
	case 0, 3: // CLAIM_NULL, CLAIM_DELEGATE_PREV
		op.Name = w.text("file", fieldComponent)
	case 1: // CLAIM_PREVIOUS
		w.Uint32("delegate_type")
	case 2: // CLAIM_DELEGATE_CUR
		op.StateID = w.stateid("delegate_stateid")
		op.Name = w.text("file", fieldComponent)
	case 4, 6: // CLAIM_FH, CLAIM_DELEG_PREV_FH
	case 5: // CLAIM_DELEG_CUR_FH
		op.StateID = w.stateid("oc_delegate_stateid")
	default:
		w.bad(off, "claim", claim)
	}
}

// result walks the result of res.Op (whose status is already read).
func (w *walker) result(res *Op4Result, mode DataMode) {
	ok := res.Status == NFS4OK
	switch res.Op {
	case Op4SetAttr: // attrsset is there whatever the status
		w.bitmap("attrsset")
		return
	case Op4Lock, Op4LockT:
		if res.Status == 10010 { // NFS4ERR_DENIED: LOCK4denied
			w.Uint64("offset")
			w.Uint64("length")
			w.Uint32("locktype")
			w.lockOwner()
			return
		}
	case Op4SetClientID:
		if res.Status == 10017 { // NFS4ERR_CLID_INUSE
			w.netaddr()
			return
		}
	case Op4GetDeviceInfo:
		if res.Status == 10005 { // NFS4ERR_TOOSMALL
			w.Uint32("mincount")
			return
		}
	case Op4LayoutGet:
		if res.Status == 10058 { // NFS4ERR_LAYOUTTRYLATER
			w.Bool("will_signal_layout_avail")
			return
		}
	case Op4Copy:
		if res.Status == 10094 { // NFS4ERR_OFFLOAD_NO_REQS
			w.Bool("consecutive")
			w.Bool("synchronous")
			return
		}
	}
	if !ok {
		return
	}
	switch res.Op {
	case Op4Access:
		w.Uint32("supported")
		w.Uint32("access")
	case Op4Close, Op4LockU, Op4OpenConfirm, Op4OpenDowngrade, Op4Lock:
		w.stateid("stateid")
	case Op4Commit:
		w.Skip(8, "writeverf")
	case Op4Create:
		w.changeInfo()
		w.bitmap("attrset")
	case Op4DelegPurge, Op4DelegReturn, Op4LockT, Op4Lookup, Op4LookupP, Op4NVerify,
		Op4OpenAttr, Op4PutFH, Op4PutPubFH, Op4PutRootFH, Op4Renew, Op4RestoreFH, Op4SaveFH,
		Op4SetClientIDConfirm, Op4Verify, Op4ReleaseLockOwner, Op4BackchannelCtl,
		Op4DestroySession, Op4FreeStateID, Op4DestroyClientID, Op4ReclaimComplete,
		Op4Allocate, Op4Deallocate, Op4Clone, Op4OffloadCancel, Op4LayoutError,
		Op4LayoutStats, Op4Illegal:
	case Op4GetAttr:
		w.fattr("obj_attributes")
	case Op4GetFH:
		res.FH = w.OpaqueVar(128, "object")
	case Op4Link, Op4Remove, Op4SetXattr, Op4RemoveXattr:
		w.changeInfo()
	case Op4Open:
		w.stateid("stateid")
		w.changeInfo()
		w.Uint32("rflags")
		w.bitmap("attrset")
		w.openDelegation()
	case Op4Read:
		res.EOF = w.Bool("eof")
		res.Count, res.Data, res.DataPos = decodeData(&w.Walker, mode, "data")
	case Op4ReadDir:
		w.Skip(8, "cookieverf")
		for w.Bool("value_follows") {
			w.Uint64("cookie")
			w.text("name", fieldName, fieldEntryName)
			if st, ok := w.rdattrError("attrs"); ok {
				res.EntryStatus = append(res.EntryStatus, st)
			}
		}
		w.Bool("eof")
	case Op4ReadLink:
		w.text("link", fieldLinkText)
	case Op4Rename:
		w.changeInfo()
		w.changeInfo()
	case Op4SecInfo, Op4SecInfoNoName:
		w.each("secinfo4", xdr.NoLimit, func() {
			if w.Uint32("flavor") == 6 { // RPCSEC_GSS
				w.opaque("oid")
				w.Uint32("qop")
				w.Uint32("service")
			}
		})
	case Op4SetClientID:
		w.Uint64("clientid")
		w.Skip(8, "setclientid_confirm")
	case Op4Write:
		res.Count = w.Uint32("count")
		res.Committed = StableHow(w.Uint32("committed"))
		w.Skip(8, "writeverf")
	case Op4BindConnToSession:
		w.Skip(16, "sessionid")
		w.Uint32("dir")
		w.Bool("use_conn_in_rdma_mode")
	case Op4ExchangeID:
		w.Uint64("clientid")
		w.Uint32("sequenceid")
		w.Uint32("flags")
		how, off := w.union("spr_how")
		switch how {
		case 0:
		case 1:
			w.stateProtectOps()
		case 2:
			w.stateProtectOps()
			w.Skip(16, "ssv_prot_info4")
			w.each("spi_handles", xdr.NoLimit, func() { w.opaque("gsshandle4_t") })
		default:
			w.bad(off, "spr_how", how)
		}
		w.Uint64("so_minor_id")
		w.opaque("so_major_id")
		w.opaque("server_scope")
		w.implID()
	case Op4CreateSession:
		w.Skip(16, "sessionid")
		w.Uint32("sequence")
		w.Uint32("flags")
		w.channelAttrs()
		w.channelAttrs()
	case Op4GetDirDelegation:
		st, off := w.union("gddrnf_status")
		switch st {
		case 0: // GDD4_OK
			w.Skip(8, "cookieverf")
			w.stateid("stateid")
			w.bitmap("notification")
			w.bitmap("child_attributes")
			w.bitmap("dir_attributes")
		case 1: // GDD4_UNAVAIL
			w.Bool("will_signal_deleg_avail")
		default:
			w.bad(off, "gddrnf_status", st)
		}
	case Op4GetDeviceInfo:
		w.Uint32("layout_type")
		w.opaque("da_addr_body")
		w.bitmap("notification")
	case Op4GetDeviceList:
		w.Uint64("cookie")
		w.Skip(8, "cookieverf")
		w.words("deviceid_list", 16)
		w.Bool("eof")
	case Op4LayoutCommit:
		if w.Bool("ns_sizechanged") {
			w.Uint64("ns_size")
		}
	case Op4LayoutGet:
		w.Bool("return_on_close")
		w.stateid("stateid")
		w.each("layout", xdr.NoLimit, func() {
			w.Skip(20, "layout4")
			w.Uint32("loc_type")
			w.opaque("loc_body")
		})
	case Op4LayoutReturn:
		if w.Bool("lrs_present") {
			w.stateid("lrs_stateid")
		}
	case Op4Sequence:
		w.Skip(16, "sessionid")
		w.Skip(20, "sequence results")
	case Op4SetSSV:
		w.opaque("digest")
	case Op4TestStateID:
		w.words("status_codes", 4)
	case Op4WantDelegation:
		w.openDelegation()
	case Op4Copy:
		w.writeResponse()
		w.Bool("consecutive")
		w.Bool("synchronous")
	case Op4CopyNotify:
		w.nfstime()
		w.stateid("stateid")
		w.each("source_server", xdr.NoLimit, w.netloc)
	case Op4IOAdvise:
		w.bitmap("hints")
	case Op4OffloadStatus:
		w.Uint64("count")
		w.each("complete", 1, func() { w.Uint32("complete") })
	case Op4ReadPlus:
		res.EOF = w.Bool("eof")
		w.each("contents", xdr.NoLimit, func() {
			t, off := w.union("content")
			switch t {
			case 0: // NFS4_CONTENT_DATA
				w.Uint64("offset")
				w.opaque("data")
			case 1: // NFS4_CONTENT_HOLE
				w.Uint64("offset")
				w.Uint64("length")
			default:
				w.bad(off, "content", t)
			}
		})
	case Op4Seek:
		res.EOF = w.Bool("eof")
		w.Uint64("offset")
	case Op4WriteSame:
		w.writeResponse()
	case Op4GetXattr:
		w.opaque("value")
	case Op4ListXattrs:
		w.Uint64("cookie")
		w.each("names", xdr.NoLimit, func() { w.opaque("name") })
		w.Bool("eof")
	default:
		w.Failf(res.Pos, "resop", "cannot walk the results of %s", res.Op)
	}
}

// crc16Stateid is the CRC Wireshark hashes stateids with (wsutil's
// crc16_ccitt: the reflected CCITT polynomial 0x8408, initial value 0xffff,
// final inversion — the X.25 CRC).
func crc16Stateid(b []byte) uint16 {
	crc := uint16(0xffff)
	for _, c := range b {
		crc ^= uint16(c)
		for i := 0; i < 8; i++ {
			if crc&1 != 0 {
				crc = crc>>1 ^ 0x8408
			} else {
				crc >>= 1
			}
		}
	}
	return ^crc
}
