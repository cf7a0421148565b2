// Package mcpserver serves one zylos home's memory as MCP tools over stdio:
// memory_search, memory_read, memory_save, memory_history and
// memory_status, on the official MCP Go SDK.
//
// Each tool goes through the code its shell command uses (the search index
// and its excerpts, records.Write with the markdown view, the status
// report), so the tools and the commands answer alike. A tool's failure,
// bad arguments included, is a tool error that says what to fix, never a
// protocol error, and a panic in one call is that call's error: the server
// goes on. Stdout carries only the protocol; logs go to stderr.
//
// The package is linked only into the zylos-memory-mcp binary: the SDK's
// package initialisation would otherwise be paid by every hook process.
package mcpserver
