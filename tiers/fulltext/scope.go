package fulltext

import (
	"path/filepath"

	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/records"
)

// dbName is the index file under the state directory.
const dbName = "search.db"

// Scope is what one index covers: the memory of a zylos home with its
// conversation log, or a standalone records root (the plugin's
// .claude/memory), which has no markdown tiers and no C4.
type Scope struct {
	// Base is what cited paths are relative to: the zylos dir, or the
	// directory that holds a standalone root's .claude.
	Base   string
	Layout tiers.Layout
	Root   string // records root
	// Standalone is a records root outside the home: only its records are
	// indexed, and the index lives in Root/.state.
	Standalone bool
	// Conversations opens the home's conversation log (Layout.C4DB) for
	// an update to index: package sync's reader, which the entry point
	// passes (c4sync.OpenConversations). nil indexes none, as a reader
	// that never updates (OpenRead, DBPath) needs none.
	Conversations OpenConversations
}

// ScopeOf is the index of layout with records root root ("" for the
// home's own records), its conversation log opened by conversations.
func ScopeOf(l tiers.Layout, root string, conversations OpenConversations) Scope {
	if root == "" || filepath.Clean(root) == filepath.Clean(l.RecordsDir()) {
		return Scope{Base: l.ZylosDir, Layout: l, Root: l.RecordsDir(), Conversations: conversations}
	}
	return Scope{Base: records.Base(root), Layout: l, Root: root, Standalone: true}
}

// DBPath is where the index of h lives.
func (h Scope) DBPath() string {
	if h.Standalone {
		return filepath.Join(h.Root, ".state", dbName)
	}
	return filepath.Join(h.Layout.StateDir(), dbName)
}

// tree is a directory the index covers and how its files become documents.
type tree struct {
	dir       string
	tier      string
	kind      sourceKind
	recursive bool
}

type sourceKind int

const (
	kindLog     sourceKind = iota // every .md a session log
	kindEntries                   // .md entries (a file with none: as a log)
	kindArchive                   // dated logs as logs, the rest as entries
	kindRecord                    // .json records
)

// trees are the directories of h, in the order they are indexed.
func (h Scope) trees() []tree {
	var ts []tree
	if !h.Standalone {
		ts = append(ts,
			tree{dir: h.Layout.SessionsDir(), tier: TierSessions, kind: kindLog},
			tree{dir: h.Layout.ReferenceDir(), tier: TierReference, kind: kindEntries},
			tree{dir: h.Layout.ArchiveDir(), tier: TierArchive, kind: kindArchive, recursive: true})
	}
	for _, c := range records.Categories {
		ts = append(ts, tree{dir: filepath.Join(h.Root, records.Folder(c)), tier: TierRecords, kind: kindRecord})
	}
	return ts
}

// rel is path as cited: relative to Base, with forward slashes.
func (h Scope) rel(path string) string {
	if r, err := filepath.Rel(h.Base, path); err == nil {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(path)
}

func (h Scope) abs(rel string) string { return filepath.Join(h.Base, filepath.FromSlash(rel)) }
