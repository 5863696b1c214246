package repl

import "github.com/rdmalab/rdmalab/engine"

// commandTable is the one table of commands: help, completion, scripts
// and JSON read it.
func commandTable() []*Command {
	var cmds []*Command
	cmds = append(cmds, clientCommands()...)
	cmds = append(cmds, serverCommands()...)
	cmds = append(cmds, stepCommands()...)
	cmds = append(cmds, showCommand(), viewCommand(), saveCommand(), serveCommand())
	cmds = append(cmds, replayCommand())
	cmds = append(cmds, captureCommands()...)
	cmds = append(cmds, faultCommands()...)
	cmds = append(cmds, sessionCommands()...)
	return cmds
}

// defaultSettings is the lab as rdmalab starts it.
func defaultSettings() engine.Settings { return engine.DefaultSettings() }
