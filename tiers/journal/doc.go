// Package journal keeps every change to a home's memory as one git commit
// in memory/.git, with who made it and why in git trailers, and reads,
// restores and reverses those changes.
//
// The engine is the git command line, run with os/exec: git is on every
// machine zylos runs on, its repository format is the one stock git and
// zylos v0.7.1's daily commit read, a process that does not touch the
// journal pays nothing for it, and git's commit-graph answers the history
// of one file over a long history where a Go implementation walks every
// commit (docs/journal.md has the figures).
//
// A journal never stands in the way of a memory write: every entry point
// returns an error for the caller to report and carry on, and what was not
// committed is committed, as an external edit, at the next chance. A stamp
// of the memory tree (paths, sizes and modification times, kept in
// memory/.state/) lets a hook that changed nothing skip git altogether.
package journal
