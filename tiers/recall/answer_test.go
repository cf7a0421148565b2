package recall

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/zylos/zylos-memory/tiers/fulltext"
)

func TestFitText(t *testing.T) {
	tests := []struct {
		name  string
		segs  []string
		ts    []string
		limit int
		want  string
	}{
		{"whole", []string{"Decision: Postgres", "Context: ledger"}, []string{"ledger"}, 100, "Decision: Postgres | Context: ledger"},
		{"query_first", []string{"Decision: Postgres for everything we run", "Context: the ledger needs strict consistency"},
			[]string{"ledger"}, 40, "Context: the ledger needs strict…"},
		{"at_a_word", []string{"one two three four five six seven eight nine ten"}, []string{"zzz"}, 20, "one two three four…"},
		{"escaped", []string{"a < b && c > d, always, in every case"}, []string{"zzz"}, 16, "a &lt; b…"},
		{"cjk_no_spaces", []string{"我们决定使用数据库迁移方案然后再讨论别的事情和更多的事情"}, []string{"数据库"}, 12, "我们决定使用数据库迁移…"},
		{"nothing", []string{"text"}, nil, 0, ""},
	}
	for _, tt := range tests {
		got := fitText(tt.segs, tt.ts, tt.limit)
		if got != tt.want || utf8.RuneCountInString(got) > tt.limit {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestFieldSegmentsOrder(t *testing.T) {
	text := "### [2026-11-20] Use Postgres\n- **Context:** strict\n- **Status:** active\n- **Decision:** Postgres\n" +
		"- **Notes:**\n- **Topic:** Use Postgres\n<!-- id: x -->\nfree text line\n"
	got := strings.Join(fieldSegments(text, "decision", "Use Postgres"), " | ")
	if want := "Decision: Postgres | Context: strict | Status: active | free text line"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// A memory from another home of the team says which.
func TestMemoryLineShowsOrigin(t *testing.T) {
	h := fulltext.Hit{Tier: fulltext.TierRecords, Category: "DECISION", Title: "Use JWT", Path: "memory/records/decisions/use-jwt.json", Origin: "laptop"}
	if got, want := memoryLine(h), "- [DECISION] Use JWT (from laptop) -> memory/records/decisions/use-jwt.json\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
