// Package templates holds the files `zylos-memory init` seeds into a zylos
// home, embedded in the binary: the blank memory tier files of seed 002
// section 3.2 under memory/, and the memory skill instructions (SKILL.md and
// the CLAUDE.md memory section, written for this binary's commands) under
// skill/.
package templates

import "embed"

// FS holds memory/ and skill/ with the layout they are installed in.
//
//go:embed memory skill
var FS embed.FS
