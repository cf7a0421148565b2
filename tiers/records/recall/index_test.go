package recall

import (
	"reflect"
	"testing"

	"github.com/zylos/zylos-memory/tiers/records"
)

var indexLineSeeds = []string{
	"- [DECISION] Use JWT -> .claude/memory/decisions/use-jwt.json #tags:auth,jwt,security",
	"- [DECISION] Use JWT -> .claude/memory/decisions/use-jwt.json",
	"- [TECH_DEBT] a -> b -> c.json #tags:x",
	"- [DECISION] a -> b #tags:",
	"- [DECISION] a ->  b",
	"- [DECISION] a -> b  \t#tags: X , y,,",
	"- [DECISION] a -> b #tag:x",
	"- [NOPE] a -> b",
	"- [] a -> b",
	"- [DECISION]  -> b",
	"- [DECISION] -> b -> c",
	"- [DECISION] t\u00a0-> b",
	"- [DECISION] t -> b\u00a0c #tags:x",
	"- [DECISION] t -> b\v#tags:x",
	"# Memory Index",
	"",
	"- [DECISION] t -> p.json #tags:a\r",
	"- [DECISION] t -> p.json #tags:#tags:x -> y",
}

// TestIndexLineMatchesRecords: readIndex must read exactly what the
// records package reads.
func TestIndexLineMatchesRecords(t *testing.T) {
	for _, line := range indexLineSeeds {
		checkIndexLine(t, line)
	}
}

func FuzzIndexLineMatchesRecords(f *testing.F) {
	for _, s := range indexLineSeeds {
		f.Add(s)
	}
	f.Fuzz(checkIndexLine)
}

func checkIndexLine(t *testing.T, line string) {
	want, wantOK := records.ParseEntry(line)
	got, gotOK := parseIndexLine(line)
	if gotOK != wantOK || !reflect.DeepEqual(got, want) {
		t.Errorf("line %q:\n got %#v %v\nwant %#v %v", line, got, gotOK, want, wantOK)
	}
}
