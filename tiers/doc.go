// Package tiers owns the tiered markdown memory of a zylos home: its layout
// on disk (and its kind, v2 or v0.7), reading and rewriting tier files
// safely beside other writers, session rotation, the consolidation report
// and its safe fixes, the status report and core-memory injection.
//
// The entry parser is the entries subpackage, the structured JSON records
// the records subpackage; the C4 conversation log lives in the sync
// package.
package tiers
