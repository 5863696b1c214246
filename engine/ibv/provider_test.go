package ibv

import (
	"errors"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

func TestOrdinal(t *testing.T) {
	if ordinal(1) != "1st" || ordinal(2) != "2nd" || ordinal(3) != "3rd" || ordinal(11) != "11th" || ordinal(22) != "22nd" {
		t.Error("ordinal")
	}
}

// A device's fault is provoked: only a wrong rkey or lkey can be, and the
// trace says which work request will carry it.
func TestProvoked(t *testing.T) {
	for _, st := range []verbs.Status{verbs.StatusRemAccessErr, verbs.StatusLocProtErr} {
		if err := canProvoke(st); err != nil {
			t.Errorf("%v: %v", st, err)
		}
	}
	if err := canProvoke(verbs.StatusRNRRetryExcErr); !errors.Is(err, verbs.EOPNOTSUPP) {
		t.Errorf("RNR_RETRY_EXC_ERR: %v", err)
	}
	if got := provoked(2, verbs.StatusRemAccessErr); got != "on the device, the 2nd RDMA WRITE or READ posted from now goes out 1 GiB past its remote address, outside the peer's MR: the responder will NAK it (REM_ACCESS_ERR)" {
		t.Error(got)
	}
	if got := provoked(1, verbs.StatusLocProtErr); !strings.HasPrefix(got, "on the device, the 1st work request posted from now goes out with a wrong lkey") {
		t.Error(got)
	}
}
