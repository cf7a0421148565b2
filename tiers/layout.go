package tiers

import "path/filepath"

// CoreSizeCap is the byte budget of core.md (Memory Architecture v2: 3 KB).
const CoreSizeCap = 3072

// Layout names every path of a zylos home. It is a value: building one
// touches no file.
type Layout struct {
	ZylosDir string
	// TZ is the TZ of the environment the home is worked on from ("" when
	// unset): the process's own, or the hook's the memory service answers.
	TZ string
	// LayoutEnv is the ZYLOS_MEMORY_LAYOUT of that environment ("" when
	// unset): the layout of a home without either layout's files.
	LayoutEnv string

	kind *Kind // detected once by Pinned; nil: Kind detects on each call
}

// Pinned is l with its kind detected now and kept: Kind answers it from
// then on without looking at the disk. A request that does not change the
// layout (a hook, a tool call, a task) pins it once; init, which seeds a
// layout, works on an unpinned one.
func (l Layout) Pinned() Layout {
	l.kind = nil
	l.kind = l.Kind()
	return l
}

// ZylosDir is the home a process works on unless --zylos-dir names one:
// $ZYLOS_DIR when set (even empty, which a command refuses), else
// HomeZylosDir. lookupEnv reads the process's environment, or the hook's
// the memory service answers for.
func ZylosDir(lookupEnv func(string) (string, bool)) string {
	if dir, ok := lookupEnv("ZYLOS_DIR"); ok {
		return dir
	}
	home, _ := lookupEnv("HOME")
	return HomeZylosDir(home)
}

// HomeZylosDir is $HOME/zylos, the root the Node scripts hard-code;
// "zylos" in the working directory without a HOME.
func HomeZylosDir(home string) string {
	if home == "" {
		return "zylos"
	}
	return filepath.Join(home, "zylos")
}

func (l Layout) MemoryDir() string    { return filepath.Join(l.ZylosDir, "memory") }
func (l Layout) CoreFile() string     { return filepath.Join(l.MemoryDir(), "core.md") }
func (l Layout) ReferenceDir() string { return filepath.Join(l.MemoryDir(), "reference") }
func (l Layout) SessionsDir() string  { return filepath.Join(l.MemoryDir(), "sessions") }
func (l Layout) CurrentSession() string {
	return filepath.Join(l.SessionsDir(), "current.md")
}
func (l Layout) ArchiveDir() string { return filepath.Join(l.MemoryDir(), "archive") }

// RecordsDir is the default root of the structured JSON CUD layer.
func (l Layout) RecordsDir() string { return filepath.Join(l.MemoryDir(), "records") }

// StateDir holds the service's own state (scheduler DB, locks, reports); as
// a dot-dir it is skipped by status and consolidation.
func (l Layout) StateDir() string { return filepath.Join(l.MemoryDir(), ".state") }

func (l Layout) C4DB() string         { return filepath.Join(l.ZylosDir, "comm-bridge", "c4.db") }
func (l Layout) ClaudeDir() string    { return filepath.Join(l.ZylosDir, ".claude") }
func (l Layout) SettingsFile() string { return filepath.Join(l.ClaudeDir(), "settings.local.json") }
func (l Layout) SkillDir() string     { return filepath.Join(l.ClaudeDir(), "skills", "memory") }
func (l Layout) EnvFile() string      { return filepath.Join(l.ZylosDir, ".env") }
