package main

import (
	"fmt"
	"io"

	"github.com/rdmalab/rdmalab/captures/annotate"
	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/internal/cli"
	"github.com/rdmalab/rdmalab/proto/safe"
)

// saveAnnotated is decode's -w: the capture at in, the packets o selects,
// written to out as pcapng, with --check's notes as their comments.
func saveAnnotated(out, in string, o decode.Output, stderr io.Writer) error {
	st, err := annotate.WriteFile(out, in, annotate.Options{Display: o.Display, Filter: o.Filter,
		Notes: o.Check, MaxExpand: o.MaxExpand})
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("rdmalab decode: %s packets written to %s", cli.Thousands(st.Packets), safe.Typed(out))
	if o.Check {
		msg += fmt.Sprintf(", with %s notes as comments", cli.Thousands(st.Comments))
	}
	fmt.Fprintln(stderr, msg)
	return nil
}
