// Package home is one zylos home opened for one request: every entry
// point (each command, the hook runner, the memory service for each hook
// it answers, the MCP server, each scheduler task) opens it once, from
// the environment it was started with, its working directory and its
// clock, and makes every memory change through it.
//
// A Home carries what the tiers below it take as parameters and what the
// front ends above it used to assemble each on their own: the layout with
// its kind detected once (tiers.Layout.Pinned), the clock, the effective
// settings (Settings: the sync threshold), the journal and the records'
// markdown view. Its operations are what a front end needs: Save (a
// records write, its markdown and its journal commit), Around (any other
// command's change), Ingest, Restore and Undo; Resolve (a tool's path to
// one memory file) and Retrieve (the prompt's memories, fitted once).
//
// It is a package of its own, not the root of tiers, because it sits
// above tiers/records, tiers/bridge and tiers/journal, which all import
// tiers: as tiers' root it would be imported by what it imports.
package home
