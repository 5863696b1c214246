// Package repl is rdmalab's command line: the commands that drive the
// engine, their help and completion, the interactive prompt, and the
// scripted mode that lessons, tests and other programs build on.
//
// # Commands
//
// One table (commandTable) describes every command: name, usage, a
// one-line summary, a longer text, an example, the kernel functions it
// exercises, its arguments and options with their completers, and its
// Run function. Help, Tab completion, scripts and `help --json` all read
// that table. Session.Exec runs one line; Session.Complete completes one;
// both split the line with Tokenize.
//
// Every command runs with the session's lab locked, through the
// engine.Shared it is kept in (Session.Shared): the full-screen view and
// the session published for other terminals read the picture copied
// after each command, and the view's keys step the lab through the same
// lock. The REPL uses viz to draw (view, replay, capture browsing) and to
// publish, never to run a command.
//
// # Scripts
//
// Session.RunScript runs a file of commands, one per line; blank lines
// are skipped and lines starting with '#' are comments. The transcript
// echoes each command after "> ", then its output: the events it caused
// (one line each, trace.Event.String, unless `trace off`), its result,
// and a "next: ..." line (unless `hints off`). Comment lines are copied
// as they are. Errors go to the error stream as "FILE:LINE: message";
// the run stops at the first unless KeepGoing. The transcript is
// deterministic for a given seed and input: no wall-clock times,
// pointers or temporary paths.
//
// A line is at most 64 KiB (maxLine), at the prompt, in a script and in
// the history file; a longer one is refused whole, never cut and run.
// Whatever the REPL repeats from the user or a file (the echoed line, a
// comment, a file name, a word in an error) is escaped as safe.Text does
// when it holds anything a terminal would act on.
//
// # Files
//
// save, capture save and capture start write through internal/atomicfile:
// a temporary file beside FILE, renamed over it when complete (for a
// recording, at capture stop or when the session ends), so a full disk or
// a crash leaves an existing FILE whole. A symbolic link at FILE is
// replaced, never followed; a directory, device or FIFO is refused.
//
// # JSON
//
// `show WHAT --json` prints one JSON document; `rdmalab run --json`
// prints one JSON object per line of the script (Record):
//
//	{"file": "x.rdl", "line": 3, "command": "show sq", "ok": true,
//	 "output": "text the command printed", "events": [Event...],
//	 "data": {the show document}, "error": "message"}
//
// A comment line gives {"file", "line", "comment", "ok": true}. In that
// mode every show command puts its document under "data" (as if --json
// were given) and the events go to "events" instead of "output". Empty
// fields are left out.
//
// Events are trace.Event: {"seq", "task", "kind" (call, return, point,
// wait, fault, note), "func", "depth", "args": [{"key", "val"}], "err",
// "text"}.
//
// The show documents use snap.Snapshot's field names; each is an object
// holding the Snapshot fields it shows (lists may be null when empty, as
// in snap.Snapshot):
//
//	show settings   {"engine": "sim", "settings": Settings, "behaviour": "fix2025"}
//	show bugs       {"behaviour", "bugs": [{"bug": "B4", "on", "override", "describe"}]}
//	show threads    {"threads": [Thread]}
//	show calls      {"calls": [Call]}
//	show chunks     {"calls": [{"xid", "label", "proc", "state", "inline_bytes",
//	                 "segments": [{"id": "0x5eed0010/0", "kind": "read chunk 0",
//	                 "position" (Read list only), "handle", "length", "offset",
//	                 "page_off"}]}]}
//	show segment    {"segment": {as in chunks}, "head_hex": "first 64 bytes"}
//	show pages      {"threads": [Thread], "reads": [Read]}
//	show sgl, rw    {"rw_ctxts": RWCtxts}
//	show reads      {"reads": [Read]}
//	show chain      {"chains": [Chain]}
//	show sq         {"sq": SQ, "chains": [Chain]}
//	show cq         {"cq": [Completion], "pending": ["operation"]}
//	show pending    {"pending": ["operation"]}
//	show positions  {"positions": Positions}
//	show events     {"events": [Event]}
//	show counters   {"counters": Counters, "rw_ctxts_created", "completions"}
//	show snapshot   snap.Snapshot itself
//
// The snap package's types name their fields in their tags: Settings
// uses "seed", "page_size", "max_send_sge", "max_sge_rd", "sq_depth",
// "inline_threshold", "credits", "profile", "bugs", "post_lock",
// "threads", "auto_complete", "link_rate", "latency" (nanoseconds) and
// so on, the names `set` takes; Thread "name", "state", "waiting_for",
// "frames", "focused", "pages", "reply_pos"; Page "index", "name",
// "extents"; RWCtxts "in_use", "cached", "created"; RWCtxt "id",
// "type", "nents", "first_sgl_nents", "chained", "sgl", "where"; SGE
// "page", "off", "len", "source", "iova" (an RDMA op's SGE on the MR
// path: "page" names the MR, "mr#1"); Read "xid", "rc_curpage",
// "rc_pageoff", "rc_readbytes", "rc_page_count", "cc_sqecount", "chunks",
// "rw_ctxts", "pages"; Chain "owner", "task", "sqecount", "pos",
// "wrs"; WR "opcode", "sges", "bytes", "remote_addr", "rkey",
// "signaled", "cqe", "wr_id"; SQ "sc_sq_depth", "sc_sq_avail",
// "waiters", "sq_starve", "sc_max_send_sges"; Completion "seq", "side",
// "queue", "wr_id", "opcode", "status", "byte_len"; Positions
// "enabled", "post_lock", "sc_post_seq", "xpt_acked_pos", "lock_holder",
// "replies" of {"xid", "proc", "pos", "acked", "inflight", "evicted",
// "send_queued"}; Call "xid", "label", "proc", "state" (prepared, sent,
// answered, or dropped: the server dropped it and no reply will come),
// "status" (GARBAGE_ARGS, NFS3_OK...), "err" (for a dropped call, who
// dropped it and why), "segments" of {"kind", "position", "handle",
// "length", "offset"} (the chunk segments it advertised).
//
// # The terminal
//
// Interactive runs the prompt (github.com/c-bata/go-prompt v0.2.6, kept
// behind prompt.go). It saves the terminal state first and restores it on
// every way out, appends each line to the history file as it is entered,
// and reads completions from the snapshot taken after each command. Its
// input parser hands a paste to go-prompt as one key and cuts a line at
// 64 KiB as it is read: go-prompt redraws the whole line after each key,
// which made a 1 MiB paste take most of a minute.
package repl
