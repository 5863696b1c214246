package kernel

import "github.com/rdmalab/rdmalab/engine/trace"

// fs/nfsd/nfs3proc.c: the NFSv3 procedures nfsd runs, one entry event a
// call (the model answers the ones it does not implement PROC_UNAVAIL).
var (
	Nfsd3ProcNull        = declare("nfsd3_proc_null", "the NFS NULL procedure", "args", "xid")
	Nfsd3ProcGetattr     = declare("nfsd3_proc_getattr", "the NFS GETATTR procedure", "args", "xid")
	Nfsd3ProcSetattr     = declare("nfsd3_proc_setattr", "the NFS SETATTR procedure", "args", "xid")
	Nfsd3ProcLookup      = declare("nfsd3_proc_lookup", "the NFS LOOKUP procedure", "args", "xid")
	Nfsd3ProcAccess      = declare("nfsd3_proc_access", "the NFS ACCESS procedure", "args", "xid")
	Nfsd3ProcReadlink    = declare("nfsd3_proc_readlink", "the NFS READLINK procedure", "args", "xid")
	Nfsd3ProcRead        = declare("nfsd3_proc_read", "the NFS READ procedure", "args", "xid")
	Nfsd3ProcWrite       = declare("nfsd3_proc_write", "the NFS WRITE procedure", "args", "data_in_pages", "xid")
	Nfsd3ProcCreate      = declare("nfsd3_proc_create", "the NFS CREATE procedure", "args", "xid")
	Nfsd3ProcMkdir       = declare("nfsd3_proc_mkdir", "the NFS MKDIR procedure", "args", "xid")
	Nfsd3ProcSymlink     = declare("nfsd3_proc_symlink", "the NFS SYMLINK procedure", "args", "xid")
	Nfsd3ProcMknod       = declare("nfsd3_proc_mknod", "the NFS MKNOD procedure", "args", "xid")
	Nfsd3ProcRemove      = declare("nfsd3_proc_remove", "the NFS REMOVE procedure", "args", "xid")
	Nfsd3ProcRmdir       = declare("nfsd3_proc_rmdir", "the NFS RMDIR procedure", "args", "xid")
	Nfsd3ProcRename      = declare("nfsd3_proc_rename", "the NFS RENAME procedure", "args", "xid")
	Nfsd3ProcLink        = declare("nfsd3_proc_link", "the NFS LINK procedure", "args", "xid")
	Nfsd3ProcReaddir     = declare("nfsd3_proc_readdir", "the NFS READDIR procedure", "args", "xid")
	Nfsd3ProcReaddirplus = declare("nfsd3_proc_readdirplus", "the NFS READDIRPLUS procedure", "args", "xid")
	Nfsd3ProcFsstat      = declare("nfsd3_proc_fsstat", "the NFS FSSTAT procedure", "args", "xid")
	Nfsd3ProcFsinfo      = declare("nfsd3_proc_fsinfo", "the NFS FSINFO procedure", "args", "xid")
	Nfsd3ProcPathconf    = declare("nfsd3_proc_pathconf", "the NFS PATHCONF procedure", "args", "xid")
	Nfsd3ProcCommit      = declare("nfsd3_proc_commit", "the NFS COMMIT procedure", "args", "xid")
)

// nfsd3Procs are the procedures by number (RFC 1813 §3).
var nfsd3Procs = [...]*trace.Func{
	Nfsd3ProcNull, Nfsd3ProcGetattr, Nfsd3ProcSetattr, Nfsd3ProcLookup,
	Nfsd3ProcAccess, Nfsd3ProcReadlink, Nfsd3ProcRead, Nfsd3ProcWrite,
	Nfsd3ProcCreate, Nfsd3ProcMkdir, Nfsd3ProcSymlink, Nfsd3ProcMknod,
	Nfsd3ProcRemove, Nfsd3ProcRmdir, Nfsd3ProcRename, Nfsd3ProcLink,
	Nfsd3ProcReaddir, Nfsd3ProcReaddirplus, Nfsd3ProcFsstat, Nfsd3ProcFsinfo,
	Nfsd3ProcPathconf, Nfsd3ProcCommit,
}

// Nfsd3Proc is the procedure numbered p, and false for a number NFSv3
// does not define.
func Nfsd3Proc(p uint32) (*trace.Func, bool) {
	if int(p) >= len(nfsd3Procs) {
		return nil, false
	}
	return nfsd3Procs[p], true
}
