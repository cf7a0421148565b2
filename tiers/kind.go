package tiers

import (
	"fmt"
	"os"
	"path/filepath"
)

// Kind is a memory layout: v2 (Memory Architecture v2: core.md always injected) or v0.7
// (zylos-core v0.7.1: identity.md, state.md and references.md injected,
// users/<id>/profile.md, reference/ideas.md).
type Kind string

const (
	KindV2  Kind = "v2"
	KindV07 Kind = "v07"
)

// DefaultKind is the layout of a home that has neither layout's files yet.
// A zylos v0.7 home is made by zylos-core's own installer, which seeds its
// templates before this binary first runs there, so a home without any
// memory file is one this binary starts on its own: it gets the v2 layout
// of the contract, whose Node parity holds, unless `init --layout v07`.
const DefaultKind = KindV2

// ParseKind reads a --layout value.
func ParseKind(s string) (Kind, error) {
	switch Kind(s) {
	case KindV2, KindV07:
		return Kind(s), nil
	case "v0.7", "v0.7.1", "v07.1":
		return KindV07, nil
	}
	return "", fmt.Errorf("unknown layout %q (want %s or %s)", s, KindV2, KindV07)
}

func (l Layout) IdentityFile() string   { return filepath.Join(l.MemoryDir(), "identity.md") }
func (l Layout) StateFile() string      { return filepath.Join(l.MemoryDir(), "state.md") }
func (l Layout) ReferencesFile() string { return filepath.Join(l.MemoryDir(), "references.md") }
func (l Layout) UsersDir() string       { return filepath.Join(l.MemoryDir(), "users") }

// Detect says which layout the home has: v2 when memory/core.md exists,
// v0.7 when any of v0.7's own files does (identity.md, state.md,
// references.md, users/, reference/ideas.md), and found false with
// DefaultKind when neither.
func (l Layout) Detect() (kind Kind, found bool) {
	if exists(l.CoreFile()) {
		return KindV2, true
	}
	for _, p := range []string{l.IdentityFile(), l.StateFile(), l.ReferencesFile(), l.UsersDir(),
		filepath.Join(l.ReferenceDir(), "ideas.md")} {
		if exists(p) {
			return KindV07, true
		}
	}
	return DefaultKind, false
}

// SyncTargets lists the memory files a memory sync updates with what it
// read, in the order the agent should visit them: the always-injected file
// that holds the working state (core.md, or v0.7's state.md, which its skill
// says to update with the current context), the reference files of the
// layout, then today's session log.
func (l Layout) SyncTargets() []string {
	ref := l.ReferenceDir()
	files := []string{l.CoreFile()}
	refs := []string{"decisions.md", "projects.md", "preferences.md"}
	if l.Kind() == KindV07 {
		files = []string{l.StateFile()}
		refs = append(refs, "ideas.md")
	}
	for _, name := range refs {
		files = append(files, filepath.Join(ref, name))
	}
	return append(files, l.CurrentSession())
}

// Kind is the home's layout (Detect without the found flag).
func (l Layout) Kind() Kind {
	k, _ := l.Detect()
	return k
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
