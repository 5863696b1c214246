package svcrdma

import "github.com/rdmalab/rdmalab/engine/verbs"

// The errnos the seed returns, as the kernel names them.
const (
	errInval     = verbs.EINVAL
	errNoMem     = verbs.ENOMEM
	errIO        = verbs.EIO
	err2Big      = verbs.E2BIG
	errAgain     = verbs.EAGAIN
	errNotConn   = verbs.ENOTCONN
	errMsgSize   = verbs.EMSGSIZE
	errProtoNoSp = verbs.EPROTONOSUPPORT
)
