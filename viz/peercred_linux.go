package viz

import (
	"fmt"
	"net"
	"syscall"
)

// peerUID is the uid of the process at the other end of a unix socket
// (SO_PEERCRED: the listener's, as it was when it called listen).
func peerUID(c net.Conn) (int, bool, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return 0, false, nil
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, false, fmt.Errorf("peer credentials: %w", err)
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return 0, false, fmt.Errorf("peer credentials: %w", err)
	}
	if cerr != nil {
		return 0, false, fmt.Errorf("peer credentials: %w", cerr)
	}
	return int(cred.Uid), true, nil
}

func isLinux() bool { return true }
