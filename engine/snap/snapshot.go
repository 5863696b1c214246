package snap

import "github.com/rdmalab/rdmalab/engine/trace"

// Snapshot is the whole state a view draws.
type Snapshot struct {
	Settings    Settings     `json:"settings"`
	Behaviour   string       `json:"behaviour"`
	Clock       string       `json:"clock"`
	Threads     []Thread     `json:"threads"`
	Reads       []Read       `json:"reads"` // calls whose Read list is being pulled or just landed
	RWCtxts     RWCtxts      `json:"rw_ctxts"`
	Chains      []Chain      `json:"chains"` // chains on the Send Queue, not yet completed
	SQ          SQ           `json:"sq"`
	CQ          []Completion `json:"cq"`
	Pending     []string     `json:"pending"` // provider operations waiting for delivery
	Positions   Positions    `json:"positions"`
	Counters    Counters     `json:"counters"`
	Calls       []Call       `json:"calls"`
	LastEvent   *trace.Event `json:"last_event,omitempty"`
	XprtClosing bool         `json:"xprt_closing"`
	XprtDead    bool         `json:"xprt_dead"`
	Recent      *Recent      `json:"recent,omitempty"` // nil: not known (an older file)
}

// Recent is what happened lately that the state alone does not say and
// the view shows: where each R/W context in use came from, what each
// thread waiting for SQEs needs, and the order Send completions came back
// in (what a plain store of the acked position would have stepped back
// on).
type Recent struct {
	RWNew    int            `json:"rw_new"`            // rw ctxt gets that allocated (kmalloc_node)
	RWReused int            `json:"rw_reused"`         // gets the cache served (llist_del_first)
	RWGot    map[int]bool   `json:"rw_got,omitempty"`  // rw ctxt in use → its last get popped the cache
	SQNeed   map[string]int `json:"sq_need,omitempty"` // task → the SQEs it waits for (svcrdma_sq_full)
	Sends    []SendDone     `json:"sends,omitempty"`   // the latest Send completions, oldest first
}

// SendDone is one Send completion: the reply position its Send carried
// and whether it succeeded.
type SendDone struct {
	Pos uint64 `json:"pos"`
	OK  bool   `json:"ok"`
}

// Thread is one nfsd thread.
type Thread struct {
	Name       string      `json:"name"`
	State      string      `json:"state"`
	WaitingFor string      `json:"waiting_for,omitempty"`
	Frames     []string    `json:"frames,omitempty"`
	Focused    bool        `json:"focused"`
	Pages      []Page      `json:"pages"` // rq_pages in use (with bytes from somewhere), in order
	ReplyPos   uint64      `json:"reply_pos"`
	Call       *CallHeader `json:"call,omitempty"` // the call this thread took last
}

// CallHeader is a call's transport header as the server parsed it: its
// XID, its procedure and one line for each chunk it carries.
type CallHeader struct {
	XID    string   `json:"xid"`
	Proc   string   `json:"proc"`
	Chunks []string `json:"chunks"`
}

// Page is one page and where its bytes came from.
type Page struct {
	Index   int      `json:"index"` // slot in rq_pages (or rc_pages)
	Name    string   `json:"name"`
	Extents []Extent `json:"extents,omitempty"`
}

// Extent is a byte range of a page and where its bytes came from.
type Extent struct {
	Off    int    `json:"off"`
	Len    int    `json:"len"`
	Source string `json:"source"` // "inline", "read chunk 1 seg 0", "call chunk", "reply", ...
}

// SGE is one scatterlist entry. The SGE of an RDMA op on the MR path
// names the MR ("mr#1") and its IOVA instead of a page: the MR maps the
// pages its REG_MR listed.
type SGE struct {
	Page   string `json:"page"`
	Off    int    `json:"off"`
	Len    int    `json:"len"`
	Source string `json:"source,omitempty"`
	IOVA   string `json:"iova,omitempty"`
}

// RWCtxt is one R/W context.
type RWCtxt struct {
	ID            int    `json:"id"`
	Type          string `json:"type"`
	NEnts         int    `json:"nents"`
	FirstSGLNents int    `json:"first_sgl_nents"`
	Chained       bool   `json:"chained"`
	SGL           []SGE  `json:"sgl,omitempty"`
	Where         string `json:"where"`
}

// RWCtxts is the R/W contexts in use and in the cache.
type RWCtxts struct {
	InUse   []RWCtxt `json:"in_use"`
	Cached  []int    `json:"cached"` // ids, top of the cache first
	Created int      `json:"created"`
}

// Read is a recv ctxt pulling a Read list.
type Read struct {
	XID       string   `json:"xid"`
	CurPage   int      `json:"rc_curpage"`
	PageOff   int      `json:"rc_pageoff"`
	ReadBytes int      `json:"rc_readbytes"`
	PageCount int      `json:"rc_page_count"`
	SQECount  int      `json:"cc_sqecount"`
	Chunks    []string `json:"chunks"`
	RWCtxts   []RWCtxt `json:"rw_ctxts"` // in posting order
	Pages     []Page   `json:"pages"`
}

// WR is one work request.
type WR struct {
	Opcode   string `json:"opcode"`
	SGEs     []SGE  `json:"sges,omitempty"`
	Bytes    int    `json:"bytes"`
	Remote   string `json:"remote_addr,omitempty"`
	RKey     string `json:"rkey,omitempty"`
	Signaled bool   `json:"signaled"`
	CQE      string `json:"cqe,omitempty"`
	WRID     uint64 `json:"wr_id"`
}

// Chain is one posted chain.
type Chain struct {
	Owner    string `json:"owner"`
	Task     string `json:"task"`
	SQECount int    `json:"sqecount"`
	Pos      uint64 `json:"pos,omitempty"`
	WRs      []WR   `json:"wrs"`
}

// SQ is the Send Queue accounting.
type SQ struct {
	Depth   int      `json:"sc_sq_depth"`
	Avail   int      `json:"sc_sq_avail"`
	Waiters []string `json:"waiters,omitempty"`
	Starve  int      `json:"sq_starve"`
	MaxSGEs int      `json:"sc_max_send_sges"`
}

// Completion is one work completion the provider delivered, as the CQ
// pane shows it.
type Completion struct {
	Seq    uint64 `json:"seq"`
	Side   string `json:"side"` // "server" or "client"
	Queue  string `json:"queue"`
	WRID   uint64 `json:"wr_id"`
	Opcode string `json:"opcode"`
	Status string `json:"status"`
	Bytes  uint32 `json:"byte_len"`
}

// Reply is one reply's position. SendQueued says its Send is still on
// the Send Queue: acked with it set is the premature acknowledgement the
// post lock prevents (the reply is not delivered).
type Reply struct {
	XID        string `json:"xid"`
	Proc       string `json:"proc"`
	Pos        uint64 `json:"pos"`
	Acked      bool   `json:"acked"`
	Inflight   bool   `json:"inflight"`
	Evicted    bool   `json:"evicted"`
	SendQueued bool   `json:"send_queued,omitempty"`
	// PosFromRqst says Pos is the thread's rq_reply_pos: the reply is
	// posted but svc_rdma_sendto has not returned, so the DRC entry has
	// no c_pos yet.
	PosFromRqst bool `json:"pos_from_rqst,omitempty"`
}

// Positions is the reply-position patch's state.
type Positions struct {
	Enabled  bool    `json:"enabled"`
	PostLock bool    `json:"post_lock"`
	PostSeq  uint64  `json:"sc_post_seq"`
	AckedPos uint64  `json:"xpt_acked_pos"`
	LockHeld string  `json:"lock_holder,omitempty"`
	Replies  []Reply `json:"replies"`
}

// Counters are the svcrdma statistics (the kernel's svcrdma_stat_* and
// what the model adds).
type Counters struct {
	Reads      int `json:"rdma_reads"`  // svcrdma_stat_read: Read segments built
	Writes     int `json:"rdma_writes"` // svcrdma_stat_write: Write pieces built
	SQStarve   int `json:"sq_starve"`   // svcrdma_stat_sq_starve
	RecvErrors int `json:"recv_errors"` // calls dropped or answered with RDMA_ERROR
	SendErrors int `json:"send_errors"` // failed ib_post_send of a Send
	Faults     int `json:"faults"`      // places the kernel would have crashed
	Hung       int `json:"hung"`        // threads that sleep forever
}

// Call is one client call. Status is what an answered call's reply
// says: the RPC accept status when it is not SUCCESS, else the NFSv3
// status ("NFS3_OK", "NFS3ERR_STALE"); empty without an RPC reply.
type Call struct {
	XID    string `json:"xid"`
	Label  string `json:"label"`
	Proc   string `json:"proc"`
	State  string `json:"state"`
	Status string `json:"status,omitempty"`
	Err    string `json:"err,omitempty"`
	// Segments are the chunk segments the call advertised, in the order
	// `show chunks` lists them: a lesson compares a work request's rkey
	// and address with them, which hold on any device.
	Segments []Segment `json:"segments,omitempty"`
}

// Segment is one chunk segment of a call (RFC 8166 names): its handle
// (the client's rkey), length and offset (the address it names).
type Segment struct {
	Kind     string  `json:"kind"` // "read chunk 0", "call chunk", "write chunk 0", "reply chunk"
	Position *uint32 `json:"position,omitempty"`
	Handle   string  `json:"handle"`
	Length   uint32  `json:"length"`
	Offset   string  `json:"offset"`
}
