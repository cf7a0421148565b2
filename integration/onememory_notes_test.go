package integration

import (
	"strings"
	"testing"
)

const (
	ideasMD   = "memory/reference/ideas.md"
	cacheRec  = "memory/records/notes/cache-the-parsed-tier.json"
	handIdeas = "# Ideas\n\nLoose thoughts, kept for later.\n\n" +
		"### Cache the parsed tier\n\nKeep the goldmark tree per file,\nkeyed by size and mtime.\n\n" +
		"- cheap to check\n  - nested detail\n\n```\n### not a heading\n```\n\n" +
		"### Ask before deleting\nNever remove a file without asking.\n"
)

// TestOneMemoryNotes: the "### Title" entries of a reference file of no
// other kind (ideas.md) are notes, one record each, both ways, with the
// real binary.
func TestOneMemoryNotes(t *testing.T) {
	h := newMemHome(t)
	h.write(ideasMD, handIdeas)

	// 1. Ingest backs each entry with a note record and adds only the ids.
	res := h.must(h.run(nil, "records", "ingest"), "ingest")
	if !strings.Contains(res.Stdout, "created "+cacheRec) || !strings.Contains(res.Stdout, "created memory/records/notes/ask-before-deleting.json") {
		t.Fatalf("ingest: %s", resultText(res))
	}
	withIDs := strings.Replace(strings.Replace(handIdeas,
		"### Cache the parsed tier\n", "### Cache the parsed tier\n<!-- id: cache-the-parsed-tier -->\n", 1),
		"### Ask before deleting\n", "### Ask before deleting\n<!-- id: ask-before-deleting -->\n", 1)
	if got := h.read(ideasMD); got != withIDs {
		t.Fatalf("ideas.md after ingest:\n%q\nwant\n%q", got, withIDs)
	}
	rec := h.record(cacheRec)
	wantBody := "Keep the goldmark tree per file,\nkeyed by size and mtime.\n\n- cheap to check\n  - nested detail\n\n```\n### not a heading\n```"
	if body := rec["content"].(map[string]any)["body"]; rec["category"] != "note" || body != wantBody {
		t.Fatalf("record: %v %q", rec["category"], body)
	}
	if res := h.must(h.run(nil, "records", "ingest"), "second ingest"); !strings.HasPrefix(res.Stdout, "Nothing to ingest") {
		t.Fatalf("second ingest: %s", resultText(res))
	}
	res = h.must(h.run(nil, "records", "index", "--query", "parsed"), "index --query")
	if !strings.Contains(res.Stdout, "- [NOTE] Cache the parsed tier -> "+cacheRec) {
		t.Fatalf("index --query: %s", res.Stdout)
	}

	// 2. A hand edit of the text updates the record (the hook ingests).
	edited := strings.Replace(withIDs, "keyed by size and mtime.", "keyed by size, mtime and inode.", 1)
	h.write(ideasMD, edited)
	if res := h.edited(ideasMD); res.Code != 0 || !strings.Contains(res.Stderr, "[INGEST] updated "+cacheRec) {
		t.Fatalf("hook after the hand edit: %s", resultText(res))
	}
	if body := h.record(cacheRec)["content"].(map[string]any)["body"]; !strings.Contains(body.(string), "mtime and inode.") {
		t.Fatalf("body after the hand edit: %q", body)
	}

	// 3. records write update rewrites only the text; every other byte stays.
	in := h.edit(cacheRec, func(d map[string]any) {
		d["content"].(map[string]any)["body"] = "Cache it per file."
		withChange(d)
	})
	h.must(h.run(nil, "records", "write", "--action", "update", "--target", cacheRec, "--input", in, "--hash", h.hash(cacheRec)), "update")
	want := strings.Replace(edited, strings.Replace(wantBody, "size and mtime", "size, mtime and inode", 1), "Cache it per file.", 1)
	if got := h.read(ideasMD); got != want {
		t.Fatalf("ideas.md after update:\n%q\nwant\n%q", got, want)
	}

	// 4. A move to another note file keeps the id; a deletion retires.
	moved := strings.Replace(want, "### Ask before deleting\n<!-- id: ask-before-deleting -->\nNever remove a file without asking.\n", "", 1)
	h.write(ideasMD, moved)
	h.write("memory/reference/rules.md", "# Rules\n\n### Ask first\n<!-- id: ask-before-deleting -->\nNever remove a file without asking.\n")
	res = h.must(h.run(nil, "records", "ingest"), "ingest after the move")
	if strings.Contains(res.Stdout, "retired") || strings.Contains(res.Stdout, "created") {
		t.Fatalf("a move between note files retired or created: %s", res.Stdout)
	}
	ask := h.record("memory/records/notes/ask-before-deleting.json")
	if ask["title"] != "Ask first" || ask["record_status"] == "retired" {
		t.Fatalf("moved record: %v %v", ask["title"], ask["record_status"])
	}
	h.write("memory/reference/rules.md", "# Rules\n")
	h.must(h.run(nil, "records", "ingest"), "ingest after the deletion")
	if st := h.record("memory/records/notes/ask-before-deleting.json")["record_status"]; st != "retired" {
		t.Fatalf("deleted note: %v", st)
	}

	// 5. A note written as a record shows in its file.
	in = h.stage("note.json", `{"title":"Try FTS5 ranking","tags":["ideas"],"related_files":["memory/reference/ideas.md"],"content":{"body":"bm25 weights per column"}}`)
	h.must(h.run(nil, "records", "write", "--action", "create", "--category", "note",
		"--target", h.path("memory/records/notes/try-fts5-ranking.json"), "--input", in), "create")
	if got := h.read(ideasMD); !strings.HasSuffix(got, "\n\n### Try FTS5 ranking\n<!-- id: try-fts5-ranking -->\nbm25 weights per column\n") {
		t.Fatalf("ideas.md after create:\n%s", got)
	}
}
