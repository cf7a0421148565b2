package tiers

import (
	"testing"
	"time"
	"unicode/utf8"
)

func TestNodeString(t *testing.T) {
	// Expected values are what Buffer.from(bytes).toString('utf8') gives.
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"\xff", "\uFFFD"},
		{"a\xe2\x82b", "a\uFFFDb"},             // truncated 3-byte sequence: one U+FFFD
		{"\xf0\x9f\x98", "\uFFFD"},             // truncated 4-byte sequence
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"}, // surrogate: ED then two strays
		{"\xc0\xaf", "\uFFFD\uFFFD"},           // overlong
		{"\xe0\x80\x80", "\uFFFD\uFFFD\uFFFD"},
		{"\xf4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"}, // above U+10FFFF
		{"ok 😀 \xfe", "ok 😀 \uFFFD"},
	}
	for _, tt := range tests {
		if got := nodeString([]byte(tt.in)); got != tt.want {
			t.Errorf("nodeString(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestJSONString(t *testing.T) {
	// Expected values are JSON.stringify's.
	tests := []struct{ in, want string }{
		{`a"b\c`, `"a\"b\\c"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"\x00\x01\x1f\x7f", `"\u0000\u0001\u001f` + "\x7f\""},
		{"<>&\u2028\u2029", "\"<>&\u2028\u2029\""},
	}
	for _, tt := range tests {
		if got := jsonString(tt.in); got != tt.want {
			t.Errorf("jsonString(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestFormatSize(t *testing.T) {
	// (n / 1024).toFixed(1) rounds exact ties up; strconv would round 1.25 to even.
	tests := map[int64]string{0: "0B", 1023: "1023B", 1024: "1.0KB", 1126: "1.1KB", 1280: "1.3KB", 2304: "2.3KB", 1587: "1.5KB", 10485760: "10240.0KB"}
	for n, want := range tests {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %s, want %s", n, got, want)
		}
	}
}

func TestNodeTimes(t *testing.T) {
	tests := []struct {
		nsec int
		want string
	}{
		{123000000, "2026-03-15T10:59:59.123Z"},
		{123400000, "2026-03-15T10:59:59.123Z"},
		{123499999, "2026-03-15T10:59:59.124Z"}, // float64 sum carries to .5, as in Node
		{123500000, "2026-03-15T10:59:59.124Z"}, // Node 20 rounds mtimeMs
		{999999999, "2026-03-15T11:00:00.000Z"},
	}
	for _, tt := range tests {
		mtime := time.Date(2026, 3, 15, 10, 59, 59, tt.nsec, time.UTC)
		if got := isoMillis(nodeStatTime(mtime)); got != tt.want {
			t.Errorf("nodeStatTime(.%09d) = %s, want %s", tt.nsec, got, tt.want)
		}
	}
}

func TestParseJSDate(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" for Invalid Date
	}{
		{"2026-02-28", "2026-02-28"},
		{"2026-02-30", "2026-03-02"}, // V8 rolls over days up to 31
		{"2026-04-31", "2026-05-01"},
		{"2026-13-45", ""},
		{"2026-00-10", ""},
		{"2026-01-00", ""},
		{"2026-01-32", ""},
	}
	for _, tt := range tests {
		got, ok := parseJSDate(tt.in)
		if (tt.want == "") != !ok || (ok && got.Format("2006-01-02") != tt.want) {
			t.Errorf("parseJSDate(%s) = %v, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
}

func FuzzNodeString(f *testing.F) {
	for _, s := range []string{"", "abc", "\xff\xe2\x82", "\xf0\x9f\x98\x80", "\xed\xa0\x80"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s := nodeString(b)
		if !utf8.ValidString(s) {
			t.Fatalf("nodeString(%q) = %q is not valid UTF-8", b, s)
		}
		if utf8.Valid(b) && s != string(b) {
			t.Fatalf("valid input changed: %q -> %q", b, s)
		}
	})
}
