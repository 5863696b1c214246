package cli

import "flag"

// Option is a flag both front ends take, rdmalab's command line (a
// flag.FlagSet) and the REPL (its command table), declared once here so
// the two spell it, describe it and read its value alike.
type Option struct {
	Name  string // without dashes
	Value string // the value's placeholder (SIZE, QPN); "" for a switch
	Usage string // what it does, in a line: the REPL's help prints it
}

// MaxExpand is --max-expand SIZE, for every command that reads captures
// (decode, replay, view; the REPL's capture open and replay); ParseSize
// reads its value.
func MaxExpand() Option {
	return Option{Name: "max-expand", Value: "SIZE",
		Usage: "how far a gzip capture may decompress (512M, 4G; default 64 times its size, 256M at least)"}
}

// QP is replay's --qp QPN; ParseQP reads its value.
func QP() Option {
	return Option{Name: "qp", Value: "QPN", Usage: "follow only the transport of this queue pair (hex 0x11 or decimal)"}
}

// ReplayRPC is replay's --rpc.
func ReplayRPC() Option {
	return Option{Name: "rpc", Usage: "print the steps with a heading where each RPC starts"}
}

// ReplayEvents is replay's --events (-v on the command line too).
func ReplayEvents() Option {
	return Option{Name: "events", Usage: "print each step's events under it"}
}

// ReplayJSON is replay's --json.
func ReplayJSON() Option {
	return Option{Name: "json", Usage: "one JSON object per step (in run --json: a summary)"}
}

// BoolVar registers the switch o on fs.
func (o Option) BoolVar(fs *flag.FlagSet, p *bool) { fs.BoolVar(p, o.Name, false, o.Usage) }

// StringVar registers o, which takes a value, on fs.
func (o Option) StringVar(fs *flag.FlagSet, p *string) { fs.StringVar(p, o.Name, "", o.Usage) }

// MaxExpandFlag registers --max-expand on fs: the limit a command passes
// to every capture it reads (0: pcapfile's default).
func MaxExpandFlag(fs *flag.FlagSet) *Size {
	var s Size
	o := MaxExpand()
	fs.Var(&s, o.Name, o.Usage)
	return &s
}
