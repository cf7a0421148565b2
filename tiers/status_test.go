package tiers

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// yearsOfLogs builds a memory tree with n daily session logs.
func yearsOfLogs(tb testing.TB, n int) Layout {
	tb.Helper()
	l := Layout{ZylosDir: tb.TempDir()}
	if _, err := Init(l, time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC), false); err != nil {
		tb.Fatal(err)
	}
	day := time.Date(2016, 3, 15, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		d := day.AddDate(0, 0, i).Format("2006-01-02")
		content := fmt.Sprintf("# Session Log: %s\n\n**09:00** - work\n", d)
		if err := os.WriteFile(filepath.Join(l.SessionsDir(), d+".md"), []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return l
}

func TestStatusMissingMemoryDir(t *testing.T) {
	var out strings.Builder
	if err := Status(Layout{ZylosDir: t.TempDir()}, &out); err != nil {
		t.Fatal(err)
	}
	want := "Memory Status Report\n====================\n\n\nTotal: 0B across 0 files\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func BenchmarkStatus3650Logs(b *testing.B) {
	l := yearsOfLogs(b, 3650)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := Status(l, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
