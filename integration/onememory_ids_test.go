package integration

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

const (
	redisRec      = "memory/records/decisions/cache-with-redis.json"
	postgresRec   = "memory/records/decisions/use-postgres-for-reports.json"
	redisDecision = `
### [2025-11-02] Cache with Redis
- **Decision:** Redis in front of the API
- **Context:** reads dominate
- **Status:** active
`
)

// ingestedDecision is handDecision as an ingest leaves it, id comment
// included.
var ingestedDecision = strings.Replace(handDecision, "C4\n", "C4\n<!-- id: use-sqlite-for-c4 -->\n", 1)

// copiedDecision is the ingested entry copied whole, id comment included,
// and made into another decision: the natural way to write a new entry.
func copiedDecision() string {
	return strings.NewReplacer("Use SQLite for C4", "Use Postgres for reports", "SQLite in WAL mode", "Postgres 16").Replace(ingestedDecision)
}

// TestCopiedIDCommentMakesANewRecord: an entry copied with another entry's
// id comment is a new entry: a record of its own with a new id, written
// into its comment, and the agent is told; the original keeps its record
// and can still be retired. Through the PostToolUse hook and through
// records ingest, with the copy below the original and above it.
func TestCopiedIDCommentMakesANewRecord(t *testing.T) {
	for _, c := range []struct {
		name  string
		above bool
		hook  bool
	}{
		{"below, hook", false, true},
		{"above, ingest", true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newMemHome(t)
			h.write(decisionsMD, "# D\n"+handDecision)
			h.ingest(0)
			if got := h.read(decisionsMD); got != "# D\n"+ingestedDecision {
				t.Fatalf("decisions.md after the first ingest:\n%s", got)
			}
			md, origLine, copyLine := "# D\n"+ingestedDecision+copiedDecision(), 3, 9
			if c.above {
				md, origLine, copyLine = "# D\n"+copiedDecision()+ingestedDecision, 9, 3
			}
			h.write(decisionsMD, md)
			change := `created ` + postgresRec + ` "Use Postgres for reports" (memory/reference/decisions.md:` + strconv.Itoa(copyLine) +
				`): its id comment named use-sqlite-for-c4, the id of "Use SQLite for C4" (memory/reference/decisions.md:` +
				strconv.Itoa(origLine) + `): the entry is a record of its own`
			if c.hook {
				res := h.edited(decisionsMD)
				var out struct{ Decision, Reason string }
				if res.Code != 0 || json.Unmarshal([]byte(res.Stdout), &out) != nil || out.Decision != "block" ||
					out.Reason != "These entries of memory/reference/decisions.md named an id that another entry holds, so each was "+
						"given an id of its own (its id comment in the file now says so; read the file again before editing it):\n- "+change {
					t.Fatalf("hook: %s", resultText(res))
				}
				if !strings.Contains(res.Stderr, "[INGEST] "+change+"\n") {
					t.Fatalf("hook stderr: %s", res.Stderr)
				}
			} else if out, _ := h.ingest(0); out != change+"\n" {
				t.Fatalf("ingest: %q", out)
			}
			want := strings.Replace(md, "Postgres for reports\n<!-- id: use-sqlite-for-c4 -->", "Postgres for reports\n<!-- id: use-postgres-for-reports -->", 1)
			if got := h.read(decisionsMD); got != want {
				t.Fatalf("decisions.md:\n%s\nwant\n%s", got, want)
			}
			rec := h.record(postgresRec)
			if rec["title"] != "Use Postgres for reports" || rec["content"].(map[string]any)["decision"] != "Postgres 16" {
				t.Fatalf("new record: %v", rec)
			}
			if rec := h.record(sqliteRec); rec["title"] != "Use SQLite for C4" || rec["content"].(map[string]any)["decision"] != "SQLite in WAL mode" || rec["times_updated"] != 0.0 {
				t.Fatalf("the original's record changed: %v", rec)
			}
			res := h.must(h.run(nil, "records", "index", "--query", "postgres"), "index --query")
			if !strings.Contains(res.Stdout, "- [DECISION] Use Postgres for reports -> "+postgresRec) {
				t.Fatalf("index --query: %s", res.Stdout)
			}
			if out, _ := h.ingest(0); out != "Nothing to ingest: the reference tier and the records agree.\n" {
				t.Fatalf("second ingest: %q", out)
			}

			// The original can be retired: its entry leaves, the copy stays.
			h.must(h.run(nil, "records", "write", "--action", "retire", "--target", sqliteRec), "retire")
			got := h.read(decisionsMD)
			if strings.Contains(got, "Use SQLite for C4") || !strings.Contains(got, "### [2025-11-01] Use Postgres for reports\n<!-- id: use-postgres-for-reports -->\n") {
				t.Fatalf("decisions.md after the retire:\n%s", got)
			}
			if rec := h.record(sqliteRec); rec["record_status"] != "retired" {
				t.Fatalf("record after the retire: %v", rec["record_status"])
			}
		})
	}
}

// TestChangedIDCommentKeepsBothRecords: an entry whose id comment is
// changed to another record's id keeps its own record (it is joined back
// to it by its title and content) instead of retiring it while its text
// stays in the file; the other record is untouched. Whether the changed
// entry is below or above the one holding the id.
func TestChangedIDCommentKeepsBothRecords(t *testing.T) {
	redisIngested := strings.Replace(redisDecision, "Redis\n", "Redis\n<!-- id: cache-with-redis -->\n", 1)
	for _, c := range []struct {
		name         string
		md           string
		line, holder int
	}{
		{"below", "# D\n" + ingestedDecision + redisIngested, 9, 3},
		{"above", "# D\n" + redisIngested + ingestedDecision, 3, 9},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newMemHome(t)
			h.write(decisionsMD, c.md)
			if out, _ := h.ingest(0); out != "Nothing to ingest: the reference tier and the records agree.\n" {
				// The ids were written by hand: ingest makes both records.
				if !strings.Contains(out, "created "+sqliteRec) || !strings.Contains(out, "created "+redisRec) {
					t.Fatalf("first ingest: %q", out)
				}
			}
			changed := strings.Replace(c.md, "<!-- id: cache-with-redis -->", "<!-- id: use-sqlite-for-c4 -->", 1)
			h.write(decisionsMD, changed)
			out, _ := h.ingest(0)
			want := `joined ` + redisRec + ` "Cache with Redis" (memory/reference/decisions.md:` + strconv.Itoa(c.line) +
				`): its id comment named use-sqlite-for-c4, the id of "Use SQLite for C4" (memory/reference/decisions.md:` + strconv.Itoa(c.holder) +
				`); the record and the entry say the same; the entry now carries its id` + "\n"
			if out != want {
				t.Fatalf("ingest:\n%q\nwant\n%q", out, want)
			}
			if got := h.read(decisionsMD); got != c.md {
				t.Fatalf("decisions.md:\n%s\nwant\n%s", got, c.md)
			}
			for _, rel := range []string{sqliteRec, redisRec} {
				if rec := h.record(rel); rec["record_status"] != "active" {
					t.Fatalf("%s: %v", rel, rec["record_status"])
				}
			}
			if title := h.record(sqliteRec)["title"]; title != "Use SQLite for C4" {
				t.Fatalf("the holder's record changed: %v", title)
			}
		})
	}
}
