// Package guard owns the two tool hooks that keep the records root written
// only through `zylos-memory records write`: the PreToolUse guard denies a
// Write or Edit aimed inside the root (staging files excepted, seed 003
// section 6), and the PostToolUse check catches a write that got through
// anyway, validates the file against its category's schema and moves an
// invalid one aside (seed 003 section 7). Both fail open.
package guard
