// Package guard owns the two tool hooks that keep the records root written
// only through `zylos-memory records write`: the PreToolUse guard denies a
// Write or Edit aimed inside the root (staging files excepted, the claude-memory plugin
// section 6), and the PostToolUse check catches a write that got through
// anyway, validates the file against its category's schema and moves an
// invalid one aside (the claude-memory plugin). Both fail open.
package guard
