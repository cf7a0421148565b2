package bridge

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/tiers/records"
)

// TestPairsAreInvisible: an ingest that trusts the pairs file (reading
// only the records whose entries changed) does exactly what a full ingest
// does: the same report and the same bytes, after hand edits of every
// kind: a field changed, an entry deleted, pasted twice, moved, retitled
// or stripped of its id, a section heading moved, a record rewritten or
// deleted behind the markdown's back, a team line written by hand, a
// record given a team behind the markdown's back.
func TestPairsAreInvisible(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 120; i++ {
		file, full, paired := twinHomes(t, r, i)
		if _, err := os.Stat(paired.pairsPath()); err != nil {
			t.Fatalf("case %d: no pairs file: %v", i, err)
		}
		var did []string
		for n := 1 + r.IntN(2); n > 0; n-- {
			did = append(did, mutate(t, r, file, full, paired))
		}
		for round := 0; round < 2; round++ {
			// The stamp is not what is tested: an in-place rewrite of a
			// record changes no folder's key, and it would skip the ingest.
			os.Remove(full.pairsPath())
			os.Remove(full.stampPath())
			os.Remove(paired.stampPath())
			want, got := mustIngest(t, full), mustIngest(t, paired)
			if fmt.Sprint(want) != fmt.Sprint(got) {
				t.Fatalf("case %d round %d (%s): reports differ\nfull:   %v\npaired: %v", i, round, strings.Join(did, ", "), want, got)
			}
			if a, b := memorySnapshot(t, full), memorySnapshot(t, paired); a != b {
				t.Fatalf("case %d round %d (%s): files differ\nfull:\n%s\npaired:\n%s", i, round, strings.Join(did, ", "), a, b)
			}
		}
	}
}

// twinHomes makes two homes holding the same generated reference file (of
// the i-th kind), each ingested twice: the second ingest finds all in step
// and writes the stamp and every pair.
func twinHomes(t *testing.T, r *rand.Rand, i int) (file string, a, b Memory) {
	t.Helper()
	files := []string{"decisions.md", "projects.md", "preferences.md", "ideas.md"}
	file = files[i%len(files)]
	src := genFile(r, file)
	a = newHome(t, map[string]string{"reference/" + file: src})
	b = newHome(t, map[string]string{"reference/" + file: src})
	for _, h := range []Memory{a, b} {
		mustIngest(t, h)
		mustIngest(t, h)
	}
	return file, a, b
}

// mutate makes one hand edit, the same in both homes, and names it.
func mutate(t *testing.T, r *rand.Rand, file string, homes ...Memory) string {
	t.Helper()
	edit := func(f func(string) string) {
		for _, h := range homes {
			testutil.WriteFile(t, h.ref(file), f(testutil.ReadFile(t, h.ref(file))))
		}
	}
	which := r.IntN(1 << 20) // the same entry in both homes
	pick := func(s string) (int, int, bool) {
		starts := headingStarts(s)
		if len(starts) == 0 {
			return 0, 0, false
		}
		k := which % len(starts)
		end := len(s)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		return starts[k], end, true
	}
	switch r.IntN(11) {
	case 0:
		edit(func(s string) string {
			for _, v := range []string{"plain value", "ünïcödé ✓", "a: b", "stated", "active", "completed", "2026-01-02"} {
				if strings.Contains(s, v) {
					return strings.Replace(s, v, "edited by hand", 1)
				}
			}
			return s + "\n### Appended by hand\n- **Value:** v\n- **Decision:** d\n- **Status:** active\n- **Updated:** 2026-03-01\n"
		})
		return "field changed"
	case 1:
		edit(func(s string) string {
			if a, b, ok := pick(s); ok {
				return s[:a] + s[b:]
			}
			return s
		})
		return "entry deleted"
	case 2:
		edit(func(s string) string {
			if a, b, ok := pick(s); ok {
				return s + "\n" + s[a:b]
			}
			return s
		})
		return "entry pasted twice"
	case 3:
		edit(func(s string) string {
			if a, b, ok := pick(s); ok {
				return s[:a] + s[b:] + "\n" + s[a:b]
			}
			return s
		})
		return "entry moved to the end"
	case 4:
		edit(func(s string) string { return idLines.ReplaceAllString(s, "") })
		return "ids stripped"
	case 5:
		edit(func(s string) string { return strings.Replace(s, "### ", "### Retitled ", 1) })
		return "entry retitled"
	case 6:
		edit(func(s string) string {
			if i := strings.Index(s, "\n## Completed"); i >= 0 {
				s = s[:i] + s[i+len("\n## Completed"):]
				return strings.Replace(s, "\n## Active", "\n## Completed", 1)
			}
			return s
		})
		return "section moved"
	case 7:
		for _, h := range homes {
			for _, p := range recordFiles(t, h) {
				data := testutil.ReadFile(t, p)
				testutil.WriteFile(t, p, strings.Replace(data, `"title": "`, `"title": "Renamed `, 1))
				break
			}
		}
		return "record rewritten"
	case 8:
		line := []string{"<!-- team: private -->", "<!-- team: from laptop -->", "<!--team: private; conflict-->"}[which%3]
		edit(func(s string) string {
			if a, b, ok := pick(s); ok {
				if loc := idLines.FindStringIndex(s[a:b]); loc != nil {
					at := a + loc[1]
					return s[:at] + line + "\n" + s[at:]
				}
			}
			return s
		})
		return "team line written by hand"
	case 9:
		for _, h := range homes {
			if ps := recordFiles(t, h); len(ps) > 0 {
				p := ps[which%len(ps)]
				data := testutil.ReadFile(t, p)
				testutil.WriteFile(t, p, strings.Replace(data, `"title": "`, `"team": {"origin": "laptop", "private": "by hand"}, "title": "`, 1))
			}
		}
		return "record given a team"
	default:
		for _, h := range homes {
			if ps := recordFiles(t, h); len(ps) > 0 {
				os.Remove(ps[len(ps)/2])
			}
		}
		return "record deleted"
	}
}

// headingStarts lists where the lines starting with "### " start.
func headingStarts(s string) []int {
	var out []int
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "### ") {
			out = append(out, i)
		}
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return out
}

// recordFiles lists the record files of the bridged categories, sorted.
func recordFiles(t *testing.T, h Memory) []string {
	t.Helper()
	var out []string
	for i := range specs {
		ps, _ := filepath.Glob(filepath.Join(h.root(), records.Folder(specs[i].category), "*.json"))
		out = append(out, ps...)
	}
	sort.Strings(out)
	return out
}

// memorySnapshot is every file of the memory dir but the lock and the
// caches, named relative to it.
func memorySnapshot(t *testing.T, h Memory) string {
	t.Helper()
	s := snapshot(t, h)
	return strings.ReplaceAll(s, h.Layout.MemoryDir(), "$MEMORY")
}
