// Package lessons is rdmalab's lesson format, its parser and checks, the
// Tutor that walks a lesson a step at a time, and the lessons that ship
// with rdmalab (the *.md files here, embedded; Shipped serves them).
//
// A lesson is a Markdown file that reads well in any Markdown viewer:
//
//	---
//	name: first-write            what `learn NAME` takes: a-z, 0-9, '-'
//	title: One NFS WRITE, ...
//	summary: a 10000-byte WRITE pulled by one RDMA Read   (one line, for lists)
//	level: beginner              beginner, intermediate or advanced
//	profile: fix2025             optional: set profile first
//	settings:                    optional: `set NAME VALUE`, in this order
//	  threads: 2
//	  post_lock: off
//	files: nfs3-rdma.pcap        optional: shipped files (in files/ beside
//	                             the lesson) copied into its folder
//	keep-lab: why                optional: run on the lab as it stands
//	---
//	# Prose that narrates
//
//	```rdmalab
//	# a comment narrates the command under it
//	write 10000
//	expect calls[0].state == sent
//	expect event svc_rdma_wc_receive
//	hint The WRITE is the first call: calls[0].
//	```
//
// A lesson always starts from a fresh lab with the default settings, then
// its profile and settings, unless keep-lab says why not. Each command of
// an ```rdmalab block is one step; the prose since the previous step (and
// "#" comment lines just above the command) is its narration. A block
// opened with ```rdmalab quiet holds steps that set the scene: a paced
// lesson runs them without waiting. Other fenced blocks are narration,
// shown as they are.
//
// Checks follow the command they check, one `expect` line each:
//
//	expect PATH OP VALUE       the lab's state, by the snapshot's JSON names
//	expect PATH                  (show snapshot --json): positions.xpt_acked_pos,
//	expect len(PATH) OP N        calls[0].state, calls[-1], threads[name=nfsd1].state;
//	                             OP is == != < <= > >= or contains; VALUE a number
//	                             (10000, 0x5eed0010, 64k), "a string", a bare word,
//	                             true, false or null
//	expect event FUNC          the step raised an event of this kernel function
//	expect no event FUNC
//	expect errno EINVAL [from FUNC]
//	                           a function returned -EINVAL during the step
//	expect no errno EINVAL [from FUNC]
//	expect fault [TEXT]        the kernel would have crashed here (a FAULT event
//	                           whose title or text holds TEXT: "hung task")
//	expect error [TEXT]        the command fails (otherwise a failing command
//	                           fails the step)
//	expect output TEXT         what the command printed contains TEXT
//	expect byte PAGE[OFF] == V a byte of a server page (pg3[100] == 0x41, or 'A')
//	expect source PAGE[OFF] == TEXT
//	                           where that byte came from ("inline",
//	                           "read chunk 0 seg 0", ...)
//
// A `hint` line after the checks is shown when one does not hold.
//
// A lesson file is untrusted input: it holds rdmalab commands only (no
// shell), and those are vetted before anything runs (Validator): source,
// learn, quit, history, view and engine are refused, and a FILE argument
// is a plain name in the lesson's own temporary folder, so a lesson
// cannot read or write elsewhere. There are no loops. A file is at most
// MaxFileSize bytes, a line MaxLineLen, a lesson MaxSteps steps, and any
// fault is reported as FILE:LINE:COL.
//
// The lessons package knows nothing of the REPL: a Machine runs the
// commands (the REPL adapts its session to one), and Tutor walks the
// steps for the paced front end (`learn NAME`) and for CheckLesson, which
// `rdmalab lesson check` and CI use.
package lessons
