package records

import (
	"os"
	"path/filepath"
	"reflect"
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
		{"- [TECH_DEBT] A -> b -> c.json", true, Entry{"tech_debt", "A", "b -> c.json", nil}},
		{"- [RUNBOOK] Fix it -> r.json", true, Entry{"runbook", "Fix it", "r.json", nil}},
		{"- [NOPE] x -> y.json", false, Entry{}},
		{"# Memory Index", false, Entry{}},
		{"", false, Entry{}},
	}
	for _, tt := range tests {
		got, ok := ParseEntry(tt.line)
		if ok != tt.ok {
			t.Errorf("%q: ok=%v", tt.line, ok)
			continue
		}
		if ok && tt.line != "- [TECH_DEBT] A -> b -> c.json" && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: got %#v", tt.line, got)
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

func FuzzIndexLine(f *testing.F) {
	f.Add("- [DECISION] Use JWT -> d/use-jwt.json #tags:auth,jwt")
	f.Add("- [SESSION_SUMMARY] a -> b")
	f.Add("- [RUNBOOK] x -> y #tags:")
	f.Fuzz(func(t *testing.T, line string) {
		e, ok := ParseEntry(line)
		if !ok {
			return
		}
		// A parsed entry, formatted again, must parse to the same path and
		// category: formatting never lets a title forge another line.
		again, ok := ParseEntry(e.String())
		if strings.ContainsAny(e.Path, "\n\r") {
			return
		}
		if !ok || again.Path != e.Path || again.Category != e.Category {
			t.Fatalf("%q -> %q -> %#v (ok=%v)", line, e.String(), again, ok)
		}
		// The fast line cutter used by updates agrees with the parser.
		if l, ok := cutLine(e.String()); !ok || l.path != e.Path {
			t.Fatalf("cutLine(%q) = %#v, %v; parser path %q", e.String(), l, ok, e.Path)
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
