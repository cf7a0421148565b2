package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// tenYearsOfLogs is typicalTree plus 3,650 rotated daily session logs.
func tenYearsOfLogs() tree {
	tr := typicalTree()
	day := time.Date(2016, 3, 15, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 3650; i++ {
		d := day.AddDate(0, 0, i).Format("2006-01-02")
		tr["memory/sessions/"+d+".md"] = "# Session Log: " + d + "\n\n**09:00** - routine work\n**17:00** - wrapped up\n"
	}
	return tr
}

// BenchmarkTierCommands runs each tier command as a whole process, the
// way a hook or the scheduler starts it.
func BenchmarkTierCommands(b *testing.B) {
	for _, size := range []struct {
		name  string
		files func() tree
	}{{"typical", typicalTree}, {"3650-logs", tenYearsOfLogs}} {
		home := filepath.Join(b.TempDir(), "zylos")
		size.files().build(b, home)
		for _, cmd := range tierCommands {
			b.Run(cmd.name+"/"+size.name, func(b *testing.B) {
				run := testutil.Run{ZylosDir: home}
				for i := 0; i < b.N; i++ {
					if res := run.Exec(b, cmd.name); res.Code != 0 {
						b.Fatalf("exit %d: %s", res.Code, res.Stderr)
					}
				}
			})
		}
	}
}

// BenchmarkRotateWithRotation measures a rotation that moves a log, not
// the same-day check.
func BenchmarkRotateWithRotation(b *testing.B) {
	home := filepath.Join(b.TempDir(), "zylos")
	typicalTree().build(b, home)
	current := filepath.Join(home, "memory", "sessions", "current.md")
	run := testutil.Run{ZylosDir: home}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		must(b, os.WriteFile(current, []byte("# Session Log: 2026-03-14\n\nwork\n"), 0o644))
		b.StartTimer()
		if res := run.Exec(b, "rotate"); res.Code != 0 {
			b.Fatalf("exit %d: %s", res.Code, res.Stderr)
		}
	}
}

// BenchmarkNodeTierScripts runs zylos's Node memory scripts on the same
// trees, for the speed comparison; skipped without node or the scripts.
func BenchmarkNodeTierScripts(b *testing.B) {
	node := newNodeScripts(b)
	if node == nil {
		b.Skip("node or the Node memory scripts missing")
	}
	for _, size := range []struct {
		name  string
		files func() tree
	}{{"typical", typicalTree}, {"3650-logs", tenYearsOfLogs}} {
		home := filepath.Join(b.TempDir(), "zylos")
		size.files().build(b, home)
		for _, cmd := range tierCommands {
			b.Run(fmt.Sprintf("%s/%s", cmd.name, size.name), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if res := node.run(b, cmd.script, home, nil); res.Code != 0 {
						b.Fatalf("exit %d: %s", res.Code, res.Stderr)
					}
				}
			})
		}
	}
}
