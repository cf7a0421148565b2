package jsstring

import "testing"

func TestLenCutSubstring(t *testing.T) {
	for _, tc := range []struct {
		s         string
		n         int
		len       int
		cut, subs string
	}{
		{"", 3, 0, "", ""},
		{"abc", 2, 3, "ab", "ab"},
		{"héllo", 2, 5, "hé", "hé"},
		{"a😀b", 1, 4, "a", "a"},
		{"a😀b", 2, 4, "a", "a\uFFFD"},
		{"a😀b", 3, 4, "a😀", "a😀"},
		{"数据库", 2, 3, "数据", "数据"},
		{"bad\xffbyte", 4, 8, "bad\xff", "bad\xff"},
		{"ab😀c", 3, 5, "ab", "ab\uFFFD"}, // half a surrogate pair, as Buffer writes it
		{"日本語", 2, 3, "日本", "日本"},
	} {
		if got := Len(tc.s); got != tc.len {
			t.Errorf("Len(%q) = %d, want %d", tc.s, got, tc.len)
		}
		if got := Cut(tc.s, tc.n); got != tc.cut {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.cut)
		}
		if got := Substring(tc.s, tc.n); got != tc.subs {
			t.Errorf("Substring(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.subs)
		}
	}
}

func FuzzCut(f *testing.F) {
	f.Add("a😀b数据", 3)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 {
			return
		}
		got := Cut(s, n)
		if Len(got) > n || len(got) > len(s) || s[:len(got)] != got {
			t.Fatalf("Cut(%q, %d) = %q", s, n, got)
		}
		if Len(s) <= n && got != s {
			t.Fatalf("Cut(%q, %d) cut a string within the limit", s, n)
		}
	})
}
