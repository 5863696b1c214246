// Package cli holds what rdmalab's capture commands share in how they read
// arguments and print numbers, so `decode`, `replay` and the REPL agree.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
)

// OneFile parses args with fs, letting flags come before or after the one
// capture file the command takes, and returns that file.
func OneFile(fs *flag.FlagSet, args []string) (string, error) {
	var files []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return "", err
		}
		args = fs.Args()
		if len(args) > 0 {
			files = append(files, args[0])
			args = args[1:]
		}
	}
	switch len(files) {
	case 0:
		return "", errors.New("no capture file given")
	case 1:
		return files[0], nil
	}
	return "", fmt.Errorf("one capture file at a time, got %d: %s", len(files), strings.Join(files, " "))
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
