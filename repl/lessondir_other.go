//go:build !unix

package repl

import (
	"errors"
	"os"
)

// No locks here: a folder is never taken for a dead process's.
func lockDir(string) (*os.File, error) { return nil, errors.New("no directory locks") }
func ownDir(string) bool               { return false }
func processAlive(int) bool            { return true }
func reraise(os.Signal)                { os.Exit(1) }
