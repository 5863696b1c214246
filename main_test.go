package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/repl"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary run as the rdmalab command inside the
// scripts of testdata/script.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"rdmalab": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		// rdmalab-panic is the REPL with a bug: the line "panic" panics
		// outside any command, where only Interactive's guard catches it.
		"rdmalab-panic": func() {
			os.Exit(interactive(os.Stdin, os.Stdout, os.Stderr, setup{}, func(line string) {
				if line == "panic" {
					panic("a bug in the REPL loop")
				}
			}))
		},
	})
}

// TestScript runs the transcript goldens. RDMALAB_UPDATE_SCRIPTS=1
// rewrites the expected files in place; review the diff like code.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("RDMALAB_UPDATE_SCRIPTS") == "1",
		Setup: func(e *testscript.Env) error {
			// No history, no colour, no terminal: what a script sees.
			e.Setenv("XDG_STATE_HOME", filepath.Join(e.WorkDir, ".state"))
			e.Setenv("NO_COLOR", "1")
			// The kernel captures, for the decode scripts (txtar holds text only).
			pcaps, err := filepath.Glob("captures/testdata/*.pcap")
			if err != nil {
				return err
			}
			for _, p := range pcaps {
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(e.WorkDir, filepath.Base(p)), b, 0o644); err != nil {
					return err
				}
			}
			return nil
		},
	})
}

// TestScriptsCoverEveryCommand checks that each command of the table runs
// in at least one transcript golden.
func TestScriptsCoverEveryCommand(t *testing.T) {
	files, err := filepath.Glob("testdata/script/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	var all strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	text := all.String()
	s, err := repl.NewSession(repl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range s.Commands() {
		re := regexp.MustCompile(`(?m)^(> )?` + regexp.QuoteMeta(c.Name) + `( |$)`)
		if !re.MatchString(text) {
			t.Errorf("no transcript golden runs %q", c.Name)
		}
	}
}
