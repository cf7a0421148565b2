// Package tiers owns the tiered markdown memory of a zylos home: its layout
// on disk, the entries inside each tier file, session rotation, the
// consolidation report, the status report and core-memory injection.
//
// The structured JSON records live in the records subpackage; the C4
// conversation log lives in the sync package.
package tiers
