package records

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestParseEntry(t *testing.T) {
	tests := []struct {
		line string
		ok   bool
		want Entry
	}{
		{"- [DECISION] Use JWT -> memory/records/decisions/use-jwt.json #tags:auth,jwt", true,
			Entry{"decision", "Use JWT", "memory/records/decisions/use-jwt.json", []string{"auth", "jwt"}}},
		// The title is the shortest one after which the rest is a path.
		{"- [TECH_DEBT] A -> b -> c.json", true, Entry{"tech_debt", "A -> b", "c.json", nil}},
		{"- [RUNBOOK] Fix it -> r.json\r\n", true, Entry{"runbook", "Fix it", "r.json", nil}},
		{"- [DECISION] a -> b  \t#tags: X , y,,", true, Entry{"decision", "a", "b", []string{"x", "y"}}},
		{"- [NOPE] x -> y.json", false, Entry{}},
		{"- [decision] x -> y.json", false, Entry{}},
		{"- [DECISION] x -> y.json #tags:", false, Entry{}},
		{"# Memory Index", false, Entry{}},
		{"", false, Entry{}},
	}
	for _, tt := range tests {
		got, ok := ParseEntry(tt.line)
		if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: got %#v, %v; want %#v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

func TestEntryStringDefusesHostileTitles(t *testing.T) {
	e := Entry{Category: "decision", Title: "evil -> /etc/passwd #tags:x\u200b\x07", Path: "p.json",
		Tags: []string{"A,B", "c->d", "#tags:e"}}
	line := e.String()
	back, ok := ParseEntry(line)
	if !ok || back.Path != "p.json" || strings.Contains(back.Title, "->") {
		t.Fatalf("line %q parsed as %#v", line, back)
	}
	if want := []string{"ab", "cd", "e"}; !reflect.DeepEqual(back.Tags, want) {
		t.Fatalf("tags %v, want %v", back.Tags, want)
	}
}

// seedIndexLine is the claude-memory plugin's index line pattern: the oracle that
// SplitIndexLine must agree with exactly.
var seedIndexLine = regexp.MustCompile(`^- \[([A-Z_]+)\] (.+?) -> (\S+)(?:\s+#tags:(.+))?$`)

// seedEntry parses a line the way the plugin does: display name and entry.
func seedEntry(line string) (string, Entry, bool) {
	m := seedIndexLine.FindStringSubmatch(strings.TrimRight(line, "\r\n"))
	if m == nil || categoryOfDisplay(m[1]) == "" {
		return "", Entry{}, false
	}
	e := Entry{Category: categoryOfDisplay(m[1]), Title: m[2], Path: m[3]}
	for _, t := range strings.Split(m[4], ",") {
		if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
			e.Tags = append(e.Tags, t)
		}
	}
	return m[1], e, true
}

// FuzzIndexLine holds SplitIndexLine and ParseIndex to the plugin's pattern,
// and formatting to never forge a line.
func FuzzIndexLine(f *testing.F) {
	for _, s := range []string{
		"- [DECISION] Use JWT -> d/use-jwt.json #tags:auth,jwt",
		"- [DECISION] Use JWT -> .claude/memory/decisions/use-jwt.json",
		"- [SESSION_SUMMARY] a -> b",
		"- [RUNBOOK] x -> y #tags:",
		"- [TECH_DEBT] a -> b -> c.json #tags:x",
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
		"- [DECISION] t -> p.json #tags:a\r",
		"- [DECISION] t -> p.json #tags:#tags:x -> y",
		"# Memory Index\n\n- [RUNBOOK] r -> r.json\r\n- [DECISION] a\n -> b\n- [PROJECT] p -> p.json #tags:A",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		display, want, wantOK := seedEntry(line)
		l, ok := SplitIndexLine(line)
		if ok != wantOK || ok && (l.Display != display || !reflect.DeepEqual(l.Entry(), want)) {
			t.Fatalf("line %q:\n got %#v %v\nwant %q %#v %v", line, l, ok, display, want, wantOK)
		}
		var wantIndex []Entry
		for _, s := range strings.Split(line, "\n") {
			if _, e, ok := seedEntry(s); ok {
				wantIndex = append(wantIndex, e)
			}
		}
		if got := ParseIndex([]byte(line)); len(got)+len(wantIndex) > 0 && !reflect.DeepEqual(got, wantIndex) {
			t.Fatalf("index %q:\n got %#v\nwant %#v", line, got, wantIndex)
		}
		if !ok {
			return
		}
		// A parsed entry, formatted again, must parse to the same path and
		// category: formatting never lets a title forge another line.
		e := l.Entry()
		again, ok := ParseEntry(e.String())
		if strings.ContainsAny(e.Path, "\n\r") {
			return
		}
		if !ok || again.Path != e.Path || again.Category != e.Category {
			t.Fatalf("%q -> %q -> %#v (ok=%v)", line, e.String(), again, ok)
		}
	})
}

func TestRebuildIndex(t *testing.T) {
	root := filepath.Join(t.TempDir(), "memory", "records")
	write := func(rel, body string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("decisions/b.json", `{"category":"decision","title":"beta","tags":["x"]}`)
	write("decisions/a.json", `{"category":"decision","title":"Alpha","tags":["y","z"]}`)
	write("decisions/old.json", `{"category":"decision","title":"old","record_status":"retired","tags":["x"]}`)
	write("runbooks/r.json", `{"category":"runbook","title":"R","tags":[]}`)
	write("runbooks/bad.json", `{`)
	var warnings []string
	n, err := RebuildIndex(root, func(s string) { warnings = append(warnings, s) })
	if err != nil || n != 3 {
		t.Fatalf("n=%d err=%v", n, err)
	}
	if len(warnings) != 1 {
		t.Fatalf("warnings %v", warnings)
	}
	got, _ := os.ReadFile(filepath.Join(root, IndexFile))
	want := indexHeader +
		"- [DECISION] Alpha -> memory/records/decisions/a.json #tags:y,z\n" +
		"- [DECISION] beta -> memory/records/decisions/b.json #tags:x\n" +
		"- [RUNBOOK] R -> memory/records/runbooks/r.json\n"
	if string(got) != want {
		t.Fatalf("index:\n%s", got)
	}
	es, err := ReadIndex(root)
	if err != nil || len(es) != 3 {
		t.Fatalf("ReadIndex: %v %v", es, err)
	}
}

// BenchmarkParseIndex10k reads the index of benchRoot's 10,000 decisions,
// as `records index --validate` does before it scans the files.
func BenchmarkParseIndex10k(b *testing.B) {
	es := make([]Entry, 10000)
	for i := range es {
		es[i] = Entry{Category: "decision", Title: fmt.Sprintf("Decision %d on topic %d", i, i%97),
			Path: fmt.Sprintf("memory/records/decisions/decision-%05d.json", i), Tags: []string{fmt.Sprintf("topic-%d", i%97), "bench"}}
	}
	data := FormatIndex(es)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if got := ParseIndex(data); len(got) != len(es) {
			b.Fatalf("%d entries, want %d", len(got), len(es))
		}
	}
}

// TestUpdateIndexKeepsOtherLines: an update replaces the entries it names
// and writes every other entry back as it was, sorted, whatever its
// length; what the index pattern does not accept is dropped.
func TestUpdateIndexKeepsOtherLines(t *testing.T) {
	root := filepath.Join(t.TempDir(), "memory", "records")
	os.MkdirAll(root, 0o755)
	long := "- [RUNBOOK] " + strings.Repeat("r", 2<<20) + " -> memory/records/runbooks/long.json"
	index := indexHeader +
		"- [DECISION] Zed -> memory/records/decisions/zed.json #tags:z\r\r\n" +
		"# a comment\n" +
		"- [decision] lower case -> memory/records/decisions/lower.json\n" +
		"- [DECISION] A -> b -> memory/records/decisions/arrow.json\n" +
		long + "\n" +
		"- [DECISION] Old -> memory/records/decisions/old.json\n"
	if err := os.WriteFile(filepath.Join(root, IndexFile), []byte(index), 0o644); err != nil {
		t.Fatal(err)
	}
	add := []Entry{{Category: "decision", Title: "New", Path: "memory/records/decisions/old.json", Tags: []string{"n"}}}
	if err := updateIndex(root, nil, add, nil); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(root, IndexFile))
	want := indexHeader +
		"- [DECISION] A -> b -> memory/records/decisions/arrow.json\n" +
		"- [DECISION] New -> memory/records/decisions/old.json #tags:n\n" +
		"- [DECISION] Zed -> memory/records/decisions/zed.json #tags:z\n" +
		long + "\n"
	if string(data) != want {
		t.Errorf("index after update:\n%.600s\nwant:\n%.600s", data, want)
	}
}

// categoryOfDisplay maps a DISPLAY name back to its category the plain
// way, as the oracle for the parser's table.
func categoryOfDisplay(d string) string {
	if c := strings.ToLower(d); ValidCategory(c) {
		return c
	}
	return ""
}
