package recall

import (
	"reflect"
	"testing"

	"github.com/zylos/zylos-memory/tiers/records"
)

// TestIndexEntries: a prompt reads exactly what the records package reads,
// less the lines keep leaves out.
func TestIndexEntries(t *testing.T) {
	text := "# Memory Index\n\n" +
		"- [DECISION] Use JWT -> decisions/use-jwt.json #tags:Auth,jwt\n" +
		"- [NOPE] x -> y.json\n" +
		"- [RUNBOOK] a -> b -> runbooks/c.json\r\n" +
		"- [DECISION] last -> decisions/last.json"
	all := []records.Entry{
		{Category: "decision", Title: "Use JWT", Path: "decisions/use-jwt.json", Tags: []string{"auth", "jwt"}},
		{Category: "runbook", Title: "a -> b", Path: "runbooks/c.json"},
		{Category: "decision", Title: "last", Path: "decisions/last.json"},
	}
	if got := indexEntries(text, nil); !reflect.DeepEqual(got, all) {
		t.Errorf("all entries:\n got %#v\nwant %#v", got, all)
	}
	got := indexEntries(text, func(l records.IndexLine) bool { return l.Category == "decision" })
	if want := []records.Entry{all[0], all[2]}; !reflect.DeepEqual(got, want) {
		t.Errorf("decisions:\n got %#v\nwant %#v", got, want)
	}
}
