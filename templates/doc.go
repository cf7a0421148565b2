// Package templates holds the files `zylos-memory init` seeds into a zylos
// home, embedded in the binary: the blank memory tier files of Memory Architecture v2
// section 3.2 under memory/, and the memory skill instructions (SKILL.md and
// the CLAUDE.md memory section, written for this binary's commands) under
// skill/, and the blank files of the zylos v0.7 layout (identity.md,
// state.md, references.md, reference/ with ideas.md, users/default/) under
// memory-v07/, written after the section structure and entry formats of
// zylos-core v0.7.1.
package templates

import "embed"

// FS holds memory/, memory-v07/ and skill/ with the layout they are
// installed in.
//
//go:embed memory memory-v07 skill
var FS embed.FS
