package bridge

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/zylos/zylos-memory/tiers/entries"
	"github.com/zylos/zylos-memory/tiers/records"
)

// splice is a planned rewrite of one reference or archive file: edits
// against the bytes as read, and what the result must hold, checked
// before anything is written.
type splice struct {
	rel   string // relative to the memory dir
	src   []byte
	edits []edit
	// show maps each record id the file must show after the edits to
	// what its entry must say; gone lists ids that must be absent.
	show    map[string]projection
	gone    map[string]bool
	touched map[int]bool // starts (in src) of the entries the edits change
	parsed  []entry      // src's entries, when known already
	// partial: parsed holds only the entry rendered in place, so only
	// provenInPlace can prove the splice (see errNotInPlace).
	partial bool
	// inPlace: provenInPlace proved it and the rewritten entry is one
	// entry up to the next heading, as before.
	inPlace bool
}

// errNotInPlace is result's answer for a partial splice that is not
// proven in place: the caller reads and parses the whole file instead.
var errNotInPlace = errors.New("splice not proven in place")

func newSplice(rel string, src []byte) *splice {
	return &splice{rel: rel, src: src, show: map[string]projection{}, gone: map[string]bool{}, touched: map[int]bool{}}
}

// render makes existing entry e show r.
func (sp *splice) render(e entry, r *records.Record) {
	sp.edits = append(sp.edits, e.spec.entryEdits(sp.src, e, r)...)
	sp.touched[e.start] = true
	sp.show[r.ID] = e.spec.shown(r)
}

// remove cuts entry e (its span, blank lines after it included).
func (sp *splice) remove(e entry) {
	sp.edits = append(sp.edits, edit{e.start, e.end, ""})
	sp.touched[e.start] = true
	if e.id != "" {
		sp.gone[e.id] = true
	}
}

// add inserts new entries for rs where they belong: a project under its
// "## Active" or "## Completed" section when the file has one, anything
// else at the end. Entries for one place are joined into one insertion
// so that each is separated by a blank line.
func (sp *splice) add(s *spec, rs []*records.Record) {
	nl := lineEnding(sp.src)
	byPlace := map[int][]string{}
	var places []int
	for _, r := range rs {
		at := s.placement(sp.src, r)
		if _, ok := byPlace[at]; !ok {
			places = append(places, at)
		}
		byPlace[at] = append(byPlace[at], s.block(r, nl))
		sp.show[r.ID] = s.shown(r)
	}
	for _, at := range places {
		sp.edits = append(sp.edits, insertBlocks(sp.src, at, byPlace[at], nl))
	}
}

// insertBlocks inserts blocks at at with a blank line before, between and
// (unless at the end) after them.
func insertBlocks(src []byte, at int, blocks []string, nl string) edit {
	var b strings.Builder
	before := src[:at]
	switch {
	case len(before) == 0:
	case !bytes.HasSuffix(before, []byte("\n")):
		b.WriteString(nl + nl)
	case !bytes.HasSuffix(before, []byte("\n\n")) && !bytes.HasSuffix(before, []byte("\n\r\n")):
		b.WriteString(nl)
	}
	b.WriteString(strings.Join(blocks, nl+nl))
	b.WriteString(nl)
	if at < len(src) {
		b.WriteString(nl)
	}
	return edit{at, at, b.String()}
}

// placement is where a new entry for r goes in src.
func (s *spec) placement(src []byte, r *records.Record) int {
	if s.kind != entries.KindProject {
		return len(src)
	}
	section := "Active"
	if strings.EqualFold(contentString(r, "status"), "completed") {
		section = "Completed"
	}
	if at, ok := sectionEnd(src, section); ok {
		return at
	}
	return len(src)
}

// sectionEnd finds the "## name" section of src (outside fenced code) and
// answers the start of the next heading of level 1 or 2 after it, or the
// end of src.
func sectionEnd(src []byte, name string) (int, bool) {
	in, at := false, len(src)
	entries.PlainLines(src, 0, len(src), func(pos, _ int, line string) bool {
		if !strings.HasPrefix(line, "# ") && !strings.HasPrefix(line, "## ") {
			return true
		}
		if in {
			at = pos
			return false
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		in = strings.HasPrefix(line, "## ") && strings.EqualFold(title, name)
		return true
	})
	return at, in
}

// splitHint says how to bring the file rel back under
// entries.MaxFileSize.
func splitHint(rel string) string {
	dir, _, _ := strings.Cut(rel, "/")
	other := "<other>.md"
	switch entries.KindOf(rel) {
	case entries.KindDecision:
		other = "decisions-<part>.md"
	case entries.KindProject:
		other = "projects-<part>.md"
	case entries.KindPreference:
		other = "preferences-<part>.md"
	}
	return "split it: move some of its entries to memory/" + dir + "/" + other
}

// result applies the edits and proves the outcome: every id to show is
// there once and says what it must, every id to drop is gone, and every
// entry the edits did not touch reads back byte for byte, in order.
func (sp *splice) result() ([]byte, error) {
	sortEdits(sp.edits)
	for i := 1; i < len(sp.edits); i++ {
		if sp.edits[i].start < sp.edits[i-1].end {
			return nil, fmt.Errorf("%s: overlapping edits; nothing changed", sp.rel)
		}
	}
	out := applyEdits(sp.src, sp.edits)
	if len(out) > entries.MaxFileSize {
		return nil, fmt.Errorf("memory/%s would grow to %d bytes, past the %d bytes up to which a file is read into entries; nothing changed (%s)",
			sp.rel, len(out), entries.MaxFileSize, splitHint(sp.rel))
	}
	if sp.provenInPlace(out) {
		return out, nil
	}
	if sp.partial {
		return nil, errNotInPlace
	}
	if err := sp.proveAll(out); err != nil {
		return nil, err
	}
	return out, nil
}

// proveAll proves out by parsing all of it.
func (sp *splice) proveAll(out []byte) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s; nothing changed", sp.rel, fmt.Sprintf(format, args...))
	}
	var kept []string
	before := sp.parsed
	if before == nil {
		before = parseEntries(sp.rel, sp.src, false)
	}
	for _, e := range before {
		if !sp.touched[e.start] && !sp.gone[e.id] {
			kept = append(kept, e.Text)
		}
	}
	found := map[string]bool{}
	i := 0
	for _, e := range parseEntries(sp.rel, out, false) {
		if i < len(kept) && kept[i] == e.Text {
			i++
			continue
		}
		want, ok := sp.show[e.id]
		switch {
		case e.id == "" || !ok && !sp.gone[e.id]:
			return fail("entry %q at line %d would change", e.Title, e.Line)
		case !ok:
			return fail("entry %q would remain", e.Title)
		case found[e.id]:
			return fail("id %s would appear twice", e.id)
		}
		found[e.id] = true
		if got := e.spec.entryProjection(e.Entry); got != want || e.problem != "" {
			return fail("entry %q would not read back as its record (%s)", e.Title, e.problem)
		}
	}
	if i != len(kept) {
		return fail("%d other entries would be lost", len(kept)-i)
	}
	for id := range sp.show {
		if !found[id] {
			return fail("entry for %s would not read back", id)
		}
	}
	return nil
}

// spliceEnd is the heading that closes the part of a file reparsed by
// provenInPlace.
const spliceEnd = "### zylos-memory splice end"

// provenInPlace proves a splice that rewrites one entry in place without
// reparsing the whole file. The bytes before the entry are unchanged and
// its first line is still an ATX heading at column 0, so the parser is in
// the same state where it starts; the bytes after it are unchanged and
// start with a heading line (or the end of the file), which a heading
// line right after the rewritten entry proves is still read as one (no
// fence or HTML block left open swallows it). So the rewritten entry,
// parsed alone under its section, reads as the whole file would read it,
// and every other entry reads as before. It answers false when the
// splice is not of that shape or the proof fails: the caller then parses
// the whole file.
func (sp *splice) provenInPlace(out []byte) bool {
	if sp.parsed == nil || len(sp.touched) != 1 || len(sp.gone) != 0 || len(sp.show) != 1 {
		return false
	}
	var e *entry
	for i := range sp.parsed {
		if sp.touched[sp.parsed[i].start] {
			e = &sp.parsed[i]
		}
	}
	var id string
	var want projection
	for id, want = range sp.show {
	}
	if e == nil || (e.id != "" && e.id != id) {
		return false
	}
	delta := 0
	for _, ed := range sp.edits {
		if ed.start < e.start || ed.end > e.end {
			return false
		}
		delta += len(ed.text) - (ed.end - ed.start)
	}
	end := e.end + delta
	var b bytes.Buffer
	if e.Section != "" {
		b.WriteString("## " + e.Section + "\n\n")
	}
	at := b.Len()
	b.Write(out[e.start:end])
	if end > e.start && out[end-1] != '\n' {
		b.WriteString("\n")
	}
	closing := b.Len()
	b.WriteString(spliceEnd + "\n")
	es := parseEntries(sp.rel, b.Bytes(), false)
	if len(es) != 2 || es[0].start != at || es[1].start != closing || es[1].Title != spliceEnd[len("### "):] {
		return false
	}
	if es[0].id != id || es[0].problem != "" || es[0].spec.entryProjection(es[0].Entry) != want {
		return false
	}
	// The entry index moves on only when the rewritten entry runs to
	// the closing heading: then no heading inside it starts an entry or a
	// section, and the entries after it keep their sections.
	sp.inPlace = es[0].end == closing
	return true
}
