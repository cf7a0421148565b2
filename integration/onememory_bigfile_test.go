package integration

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// readLimit is entries.MaxFileSize, the size up to which a reference
// file is read into entries.
const readLimit = 4 << 20

const splitHint = "(split it: move some of its entries to memory/reference/decisions-<part>.md)"

// bigDecisions is a decisions.md of size bytes: entries without ids, each
// with a long Context, after a paragraph that pads it to size.
func bigDecisions(size int) (md string, entries int) {
	var b strings.Builder
	context := strings.Repeat("word ", 4000)
	for ; ; entries++ {
		e := fmt.Sprintf("\n### [2026-03-01] Decision number %d\n- **Decision:** use option %d\n- **Context:** %s\n- **Status:** active\n", entries, entries, context)
		if b.Len()+len(e)+100 > size {
			head := "# Decisions Log\n\n"
			return head + strings.Repeat("p", size-len(head)-1-b.Len()) + "\n" + b.String(), entries
		}
		b.WriteString(e)
	}
}

// TestReferenceFilePastReadLimit: a reference file is never grown past
// the size up to which it is read into entries, and one that is past it
// (grown by hand) is refused with the truth before anything changes:
// no record is created, retired or said to be.
func TestReferenceFilePastReadLimit(t *testing.T) {
	newOne := `{"title":"New one","tags":["t"],"content":{"status":"accepted","context":"c","decision":"d","rationale":["r"]}}`
	const newRec = "memory/records/decisions/new-one.json"

	t.Run("ids would grow it past the limit", func(t *testing.T) {
		h := newMemHome(t)
		md, n := bigDecisions(readLimit - 4000)
		h.write(decisionsMD, md)
		out, errs := h.ingest(1)
		created := strings.Count(out, "\ncreated ") + 1
		if !strings.HasPrefix(out, "created ") || created >= n {
			t.Fatalf("ingest created %d of %d: %s", created, n, out)
		}
		leftAt := func(line int) string {
			return fmt.Sprintf(`zylos-memory: records ingest: memory/reference/decisions.md:%d "Decision number %d": left alone: `+
				`its id comment would take memory/reference/decisions.md past the %d bytes up to which a file is read into entries %s`+"\n",
				line, created, readLimit, splitHint)
		}
		left := leftAt(5 + 5*created)
		if !strings.HasPrefix(errs, left) || strings.Count(errs, "\n") != n-created {
			t.Fatalf("ingest stderr (%d lines, want %d) starts %q, want %q", strings.Count(errs, "\n"), n-created, errs[:min(len(errs), 400)], left)
		}
		after := h.read(decisionsMD)
		if len(after) > readLimit || strings.Count(after, "<!-- id: ") != created {
			t.Fatalf("decisions.md is %d bytes with %d ids, want at most %d with %d", len(after), strings.Count(after, "<!-- id: "), readLimit, created)
		}
		// The file is still read: the next ingest says the same, each
		// entry holding an id one line longer.
		again, errs2 := h.ingest(1)
		if again != fmt.Sprintf("Nothing ingested: %d problems to mend, listed on stderr.\n", n-created) ||
			!strings.HasPrefix(errs2, leftAt(5+6*created)) || strings.Count(errs2, "\n") != n-created {
			t.Fatalf("second ingest: %q\n%s", again, errs2[:min(len(errs2), 400)])
		}

		// A new record's entry does not fit: nothing is written.
		before := testutil.Tree(t, h.path("memory"))
		res := h.run(nil, "records", "write", "--action", "create", "--category", "decision", "--target", newRec, "--input", h.stage("new.json", newOne))
		lastLine := fmt.Sprintf("zylos-memory: render record: memory/reference/decisions.md would grow to %d bytes, past the %d bytes up to which "+
			"a file is read into entries; nothing changed %s\n", len(after)+len("\n### [2026-11-26] New one\n<!-- id: new-one -->\n- **Decision:** d\n- **Context:** c\n- **Status:** active\n"), readLimit, splitHint)
		if res.Code != 1 || res.Stdout != "" || !strings.HasSuffix(res.Stderr, lastLine) {
			t.Fatalf("create: %s\nwant the last line %q", resultText(res), lastLine)
		}
		os.Remove(h.path("memory/records/.staging/new.json"))
		if now := testutil.Tree(t, h.path("memory")); now != before {
			t.Fatalf("a refused create changed files:\n%s", testutil.Diff(before, now))
		}

		// Split by hand: every entry gets its record, and a create works.
		cut := strings.Index(after, fmt.Sprintf("\n### [2026-03-01] Decision number %d\n", created-10))
		h.write(decisionsMD, after[:cut+1])
		h.write("memory/reference/decisions-more.md", "# More decisions\n"+after[cut:])
		if out, errs := h.ingest(0); strings.Count(out, "created ") != n-created || errs != "" {
			t.Fatalf("ingest after the split: %s\n%s", out, errs)
		}
		h.must(h.run(nil, "records", "write", "--action", "create", "--category", "decision", "--target", newRec, "--input", h.stage("new.json", newOne)), "create after the split")
		if !strings.Contains(h.read(decisionsMD), "<!-- id: new-one -->") {
			t.Fatal("the new record has no entry")
		}
	})

	t.Run("a 20 MB file", func(t *testing.T) {
		h := newMemHome(t)
		h.write(decisionsMD, "# D\n"+handDecision)
		h.ingest(0)
		h.write(decisionsMD, h.read(decisionsMD)+strings.Repeat("filler line of prose\n", 20<<20/21))
		size := len(h.read(decisionsMD))
		problem := fmt.Sprintf("memory/reference/decisions.md:1: file is %d bytes; files over %d bytes are not parsed into entries %s", size, readLimit, splitHint)
		if out, errs := h.ingest(1); out != "Nothing ingested: 1 problem to mend, listed on stderr.\n" || errs != "zylos-memory: records ingest: "+problem+"\n" {
			t.Fatalf("ingest: %q %q", out, errs)
		}
		refused := "zylos-memory: render record: " + strings.Replace(problem, ":1: ", ": ", 1) +
			"; the record's entry can be neither found nor placed, so nothing changed\n"
		before := testutil.Tree(t, h.path("memory"))
		res := h.run(nil, "records", "write", "--action", "retire", "--target", sqliteRec)
		if res.Code != 1 || res.Stdout != "" || res.Stderr != "[WARN] "+problem+"\n"+refused {
			t.Fatalf("retire: %s\nwant stderr %q", resultText(res), "[WARN] "+problem+"\n"+refused)
		}
		res = h.run(nil, "records", "write", "--action", "create", "--category", "decision", "--target", newRec, "--input", h.stage("new.json", newOne))
		if res.Code != 1 || res.Stdout != "" || !strings.HasSuffix(res.Stderr, refused) {
			t.Fatalf("create: %s", resultText(res))
		}
		os.Remove(h.path("memory/records/.staging/new.json"))
		if now := testutil.Tree(t, h.path("memory")); now != before {
			t.Fatalf("a refused write changed files:\n%s", testutil.Diff(before, now))
		}
		if rec := h.record(sqliteRec); rec["record_status"] != "active" {
			t.Fatalf("record: %v", rec["record_status"])
		}
	})
}
