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
	"github.com/zylos/zylos-memory/tiers/entries"
)

// cutEntries returns src without the moving entries, after proving that
// nothing else goes: each cut range is its entry's text plus trailing
// blank space, the cuts and the rest add up to src byte for byte, and the
// rest still parses into every entry that stays.
func cutEntries(rel string, src []byte, all, moving []entries.Entry) ([]byte, error) {
	var rest bytes.Buffer
	prev, cut := 0, 0
	for _, e := range moving {
		start, end := e.Span()
		block := src[start:end]
		if start < prev || strings.TrimRight(string(block), " \t\r\n") != e.Text {
			return nil, fmt.Errorf("archive entries: %s:%d %q: cannot cut it cleanly; nothing changed", rel, e.Line, e.Title)
		}
		rest.Write(src[prev:start])
		cut += len(block)
		prev = end
	}
	rest.Write(src[prev:])
	if rest.Len()+cut != len(src) {
		return nil, fmt.Errorf("archive entries: %s: cut %d + rest %d bytes != %d; nothing changed", rel, cut, rest.Len(), len(src))
	}
	if got, want := len(entries.Parse(rel, rest.Bytes())), len(all)-len(moving); got != want {
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
// run may have archived them already (see placeInArchive). The file is
// written atomically and read back; every entry must then be in it, whole.
func (a *applier) appendToArchive(target string, moving []entries.Entry) error {
	path := filepath.Join(a.l.MemoryDir(), target)
	old, err := regfile.ReadFile(path)
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("archive entries: %w", err)
	}
	buf := old
	if !existed {
		buf = []byte(ArchiveHeader(target))
	}
	buf, changed := placeInArchive(target, buf, moving)
	if !changed {
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

// placeInArchive answers the archive content with every entry bound for
// target in it, and whether that differs from src. An entry already there
// is left as it is. A run killed after it wrote the archive and before it
// rewrote the source file leaves each entry in both, and the source copy
// may read differently by the next run: an ingest gave it its id comment
// (ingest defers new records past a bound, so the first run archived it
// without one), or a hand edited it. Its archived copy is recognised by
// the entry's id comment, also when the copy lacks the comment but reads
// the same otherwise, and is replaced in place by the entry as it reads
// now: the entry is archived once and names its record, and the old bytes
// are in the backup taken before the write. Any other entry is appended.
func placeInArchive(target string, src []byte, moving []entries.Entry) ([]byte, bool) {
	have := entries.Parse(target, src)
	copies := indexCopies(src, have)
	texts := map[string]int{} // text -> its entry's index in have, -1 once placed
	for i := len(have) - 1; i >= 0; i-- {
		texts[have[i].Text] = i
	}
	replace := map[int]string{} // index in have -> the entry as it reads now
	var appended []string
	for _, e := range moving {
		if ArchiveFileFor(e) != target {
			continue
		}
		if i, ok := texts[e.Text]; ok {
			// There as it reads now: no other entry may replace that copy.
			if i >= 0 {
				copies.taken[i] = true
			}
			continue
		}
		texts[e.Text] = -1
		if i := copies.take(entries.Identity(e.Text)); i >= 0 {
			replace[i] = e.Text
			continue
		}
		appended = append(appended, e.Text)
	}
	if len(replace) == 0 && len(appended) == 0 {
		return src, false
	}
	out := append([]byte(nil), src...)
	for i := len(have) - 1; i >= 0; i-- {
		if text, ok := replace[i]; ok {
			start, _ := have[i].Span()
			out = append(out[:start:start], append([]byte(text), out[start+len(have[i].Text):]...)...)
		}
	}
	for _, text := range appended {
		out = AppendBlock(out, text)
	}
	return out, true
}

// archiveCopies indexes the entries of an archive file that may be an
// earlier copy of an entry being archived, by index in file order.
type archiveCopies struct {
	byID   map[string][]int // the id its comment names
	idless map[string][]int // the text of one without an id comment
	taken  map[int]bool
}

// indexCopies indexes the well-formed entries of src that read back as
// written, so that one can be replaced in place.
func indexCopies(src []byte, have []entries.Entry) *archiveCopies {
	c := &archiveCopies{byID: map[string][]int{}, idless: map[string][]int{}, taken: map[int]bool{}}
	for i, h := range have {
		start, _ := h.Span()
		if h.Problem != "" || start+len(h.Text) > len(src) || string(src[start:start+len(h.Text)]) != h.Text {
			continue
		}
		if id, _ := entries.Identity(h.Text); id != "" {
			c.byID[id] = append(c.byID[id], i)
		} else {
			c.idless[h.Text] = append(c.idless[h.Text], i)
		}
	}
	return c
}

// take answers the first copy not taken yet of the entry with this id
// and this text without its id comment: one with the same id, else one
// without an id and with the same text. An entry without an id has no
// copy but its exact text; -1 when there is none.
func (c *archiveCopies) take(id, rest string) int {
	if id == "" {
		return -1
	}
	for _, list := range [][]int{c.byID[id], c.idless[rest]} {
		for _, i := range list {
			if !c.taken[i] {
				c.taken[i] = true
				return i
			}
		}
	}
	return -1
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
	for _, e := range entries.Parse(name, src) {
		set[e.Text] = true
	}
	return set
}

// verifyArchived reads target back after writing it.
func verifyArchived(path, target string, moving []entries.Entry) error {
	data, err := regfile.ReadFile(path)
	if err != nil {
		return fmt.Errorf("archive entries: verify: %w", err)
	}
	return checkArchived(target, data, moving)
}

// checkArchived holds that each entry bound for target is in its content
// as a whole entry, before anything is removed from its source: an archive
// ending inside a code block, say, would swallow it.
func checkArchived(target string, content []byte, moving []entries.Entry) error {
	archived := entryTexts(target, content)
	for _, e := range moving {
		if ArchiveFileFor(e) == target && !archived[e.Text] {
			return fmt.Errorf("archive entries: %s:%d %q would not read back whole from %s; nothing changed", e.File, e.Line, e.Title, target)
		}
	}
	return nil
}
