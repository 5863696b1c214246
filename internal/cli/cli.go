// Package cli holds what rdmalab's capture commands share in how they read
// arguments and print numbers, so `decode`, `replay` and the REPL agree.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/rdmalab/rdmalab/proto/safe"
)

// Parse parses args with fs, letting flags come before or after the
// arguments, and returns the arguments. After "--" everything is an
// argument.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if n := len(args) - fs.NArg(); n > 0 && args[n-1] == "--" {
			return append(rest, fs.Args()...), nil
		}
		args = fs.Args()
		if len(args) > 0 {
			rest = append(rest, args[0])
			args = args[1:]
		}
	}
	return rest, nil
}

// OneFile returns the one capture file of a command's arguments.
func OneFile(args []string) (string, error) {
	switch len(args) {
	case 0:
		return "", errors.New("no capture file given")
	case 1:
		return args[0], nil
	}
	return "", fmt.Errorf("one capture file at a time, got %d: %s", len(args), strings.Join(args, " "))
}

// Thousands writes n with commas: 340,112.
func Thousands(n int) string {
	if n < 0 {
		return "-" + Thousands(-n)
	}
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ParseQP reads the queue pair number of replay's --qp: 1 to 0xffffff,
// in hex (0x11) or decimal (17).
func ParseQP(s string) (uint32, error) {
	n, err := strconv.ParseUint(s, 0, 24)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("--qp %s: not a queue pair number (1 to 0xffffff, as 0x11 or 17)", safe.Text(s))
	}
	return uint32(n), nil
}
