// Package triage owns the Stop-hook decision of the structured memory layer:
// it reads the tail of a Claude Code transcript, scores the six record
// categories with deterministic keyword heuristics (the claude-memory plugin, memory_triage),
// and, when a category crosses its threshold, blocks the stop (exit 2) with a
// message on stderr that tells the agent what to save, plus one context file
// per triggered category.
//
// Everything fails open: any error, timeout or odd input ends in exit 0 so a
// broken memory layer never traps the agent.
package triage
