// Package kernel declares, once, every kernel function and trace point the
// model names: its name (what events carry), one line of what it does and
// the argument keys its events may carry. A file here mirrors a kernel
// source file; the model's Go twin of each function (engine/svcrdma,
// engine/nfsd) passes the value to sched.Task's Call and Point, and the
// REPL, the lessons, the view and the replay builder name it by the same
// value, so a misspelt name does not compile.
//
// The package imports only engine/trace, so that every layer may import
// it: the REPL, the view and a replay name functions without the model.
package kernel
