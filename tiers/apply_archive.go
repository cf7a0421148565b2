package tiers

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/regfile"
)

// cutEntries returns src without the moving entries, after proving that
// nothing else goes: each cut range is its entry's text plus trailing
// blank space, the cuts and the rest add up to src byte for byte, and the
// rest still parses into every entry that stays.
func cutEntries(rel string, src []byte, all, moving []Entry) ([]byte, error) {
	var rest bytes.Buffer
	prev, cut := 0, 0
	for _, e := range moving {
		block := src[e.start:e.end]
		if e.start < prev || strings.TrimRight(string(block), " \t\r\n") != e.Text {
			return nil, fmt.Errorf("archive entries: %s:%d %q: cannot cut it cleanly; nothing changed", rel, e.Line, e.Title)
		}
		rest.Write(src[prev:e.start])
		cut += len(block)
		prev = e.end
	}
	rest.Write(src[prev:])
	if rest.Len()+cut != len(src) {
		return nil, fmt.Errorf("archive entries: %s: cut %d + rest %d bytes != %d; nothing changed", rel, cut, rest.Len(), len(src))
	}
	if got, want := len(ParseEntries(rel, rest.Bytes())), len(all)-len(moving); got != want {
		return nil, fmt.Errorf("archive entries: %s: %d entries would remain, want %d; nothing changed", rel, got, want)
	}
	return rest.Bytes(), nil
}

// ArchiveHeader starts a new archive file; projects sit under "## Completed"
// so that one whose status came from its section keeps it.
func ArchiveHeader(target string) string {
	name := strings.TrimSuffix(filepath.Base(target), ".md")
	kind, year, _ := strings.Cut(name, "-")
	if kind == "projects" {
		return fmt.Sprintf("# Projects Archive %s\n\n## Completed\n\n", year)
	}
	return fmt.Sprintf("# Decisions Archive %s\n\n", year)
}

// appendToArchive appends to target (relative to the memory dir) the
// entries that belong there and are not there yet: an interrupted earlier
// run may have archived them already. The file is written atomically and
// read back; every entry must then be in it, whole.
func (a *applier) appendToArchive(target string, moving []Entry) error {
	path := filepath.Join(a.l.MemoryDir(), target)
	old, err := regfile.ReadFile(path)
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("archive entries: %w", err)
	}
	buf := append([]byte(nil), old...)
	if !existed {
		buf = []byte(ArchiveHeader(target))
	}
	archived := entryTexts(target, buf)
	added := 0
	for _, e := range moving {
		if ArchiveFileFor(e) != target || archived[e.Text] {
			continue
		}
		buf = AppendBlock(buf, e.Text)
		archived[e.Text] = true
		added++
	}
	if added == 0 {
		return nil
	}
	if err := checkArchived(target, buf, moving); err != nil {
		return err
	}
	if existed {
		if err := a.backUp(path, old); err != nil {
			return err
		}
	}
	if err := atomicfile.WriteFile(path, buf, 0o644); err != nil {
		return fmt.Errorf("archive entries: %w", err)
	}
	return verifyArchived(path, target, moving)
}

// AppendBlock appends an entry's text, separated from what precedes it by
// one blank line.
func AppendBlock(buf []byte, text string) []byte {
	if len(buf) > 0 && !bytes.HasSuffix(buf, []byte("\n")) {
		buf = append(buf, '\n')
	}
	if len(buf) > 0 && !bytes.HasSuffix(buf, []byte("\n\n")) {
		buf = append(buf, '\n')
	}
	return append(append(buf, text...), '\n')
}

// entryTexts is the set of the entries' texts in an archive file.
func entryTexts(name string, src []byte) map[string]bool {
	set := map[string]bool{}
	for _, e := range ParseEntries(name, src) {
		set[e.Text] = true
	}
	return set
}

// verifyArchived reads target back after writing it.
func verifyArchived(path, target string, moving []Entry) error {
	data, err := regfile.ReadFile(path)
	if err != nil {
		return fmt.Errorf("archive entries: verify: %w", err)
	}
	return checkArchived(target, data, moving)
}

// checkArchived holds that each entry bound for target is in its content
// as a whole entry, before anything is removed from its source: an archive
// ending inside a code block, say, would swallow it.
func checkArchived(target string, content []byte, moving []Entry) error {
	archived := entryTexts(target, content)
	for _, e := range moving {
		if ArchiveFileFor(e) == target && !archived[e.Text] {
			return fmt.Errorf("archive entries: %s:%d %q would not read back whole from %s; nothing changed", e.File, e.Line, e.Title, target)
		}
	}
	return nil
}
