package guard

import (
	"slices"
	"testing"
)

func TestWriteTargets(t *testing.T) {
	env := map[string]string{"REC": "/h/zylos/memory/records"}
	getenv := func(k string) string { return env[k] }
	cases := []struct {
		line string
		want []string
	}{
		{"echo x > a.json", []string{"/w/a.json"}},
		{"echo x >>a.json 2>/dev/null", []string{"/w/a.json", "/dev/null"}},
		{"cmd 2>&1 | tee -a 'b c.json' d.json", []string{"/w/b c.json", "/w/d.json"}},
		{"cp -r src1 src2 dst/", []string{"/w/dst"}},
		{"cp -t dst a b", []string{"/w/dst"}},
		{"mv a b", []string{"/w/a", "/w/b"}},
		{"sed -i.bak 's/a/b/' f.json", []string{"/w/f.json"}},
		{"sed -i -e 's/a/b/' f.json g.json", []string{"/w/f.json", "/w/g.json"}},
		{"sed 's/a/b/' f.json", nil},
		{"dd if=x of=y.json", []string{"/w/y.json"}},
		{"cd sub && rm -f *.json", []string{"/w/sub/*.json"}},
		{`printf x > "$REC/d.json"`, []string{"/h/zylos/memory/records/d.json"}},
		{"sudo FOO=1 touch ~/x", []string{"~/x"}},
		{"cat a.json; grep -r x . | head # > not.json", nil},
		{`echo "a > b" > c`, []string{"/w/c"}},
		{"ls >&2", nil},
	}
	for _, c := range cases {
		if got := WriteTargets(c.line, "/w", getenv); !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.line, got, c.want)
		}
	}
}

// FuzzWriteTargets: any command line is lexed without a panic or a hang.
func FuzzWriteTargets(f *testing.F) {
	for _, s := range []string{"echo x > a", "a 2>&1 | tee -a 'b", `"unterminated`, "x\\", "&>>f", "cd; cd a b >"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		_ = WriteTargets(line, "/w", func(string) string { return "" })
	})
}

func BenchmarkWriteTargets(b *testing.B) {
	line := `cd /home/u/zylos && grep -rn "sqlite" memory/reference/ 2>/dev/null | head -20 > /tmp/hits.txt && cat memory/records/decisions/use-wal.json | jq .title`
	for range b.N {
		_ = WriteTargets(line, "/w", func(string) string { return "" })
	}
}
