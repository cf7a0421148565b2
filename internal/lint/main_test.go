package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("tiers/a.go", `package tiers

import (
	"os"
	clock "time"
	"runtime/debug"
)

func f() {
	_ = os.Getenv("HOME")
	_, _ = os.Getwd()
	_ = clock.Now()
	debug.SetGCPercent(400)
	//processglobal: a deadline on the wall clock
	_ = clock.Now()
	_ = clock.Now() //processglobal: the same line
	//processglobal:
	_ = clock.Now()
}
`)
	write("tiers/shadow.go", "package tiers\n\nimport \"os\"\n\nfunc g(os struct{ Getenv func(string) string }) { _ = os.Getenv(\"X\") }\n\nvar _ = os.Args\n")
	write("tiers/a_test.go", "package tiers\n\nimport \"os\"\n\nvar _ = os.Getenv(\"X\")\n")
	write("cmd/x/main.go", "package main\n\nimport \"os\"\n\nfunc main() { _ = os.Getenv(\"X\") }\n")
	got, err := check(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"tiers/a.go:10: os.Getenv uses the environment of this process",
		"tiers/a.go:11: os.Getwd uses the working directory of this process",
		"tiers/a.go:12: clock.Now uses the clock of this process",
		"tiers/a.go:13: debug.SetGCPercent uses the collector's pace of this process",
		"tiers/a.go:18: clock.Now uses the clock of this process", // a directive without a reason
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The repository itself keeps the rule.
func TestRepository(t *testing.T) {
	got, err := check("../..")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > 0 {
		t.Errorf("process globals outside cmd/:\n%s", strings.Join(got, "\n"))
	}
}

// The repository's imports run downward.
func TestRepositoryLayers(t *testing.T) {
	got, err := checkLayers("../..")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > 0 {
		t.Errorf("imports running upward:\n%s", strings.Join(got, "\n"))
	}
}

func TestCheckLayers(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n")
	write("internal/leaf/leaf.go", "package leaf\nimport _ \"example.com/m/tiers\"\n")
	write("tiers/t.go", "package tiers\nimport _ \"example.com/m/internal/leaf\"\n")
	write("tiers/fulltext/c4.go", "package fulltext\nimport _ \"example.com/m/sync\"\n")
	write("sync/reader.go", "package sync\nimport _ \"example.com/m/tiers/fulltext\"\n")
	write("tiers/t_test.go", "package tiers\nimport _ \"example.com/m/hooks\"\n")
	write("sync/s.go", "package sync\nimport _ \"example.com/m/dashboard\"\nimport _ \"example.com/m/fixture/f\"\n")
	write("dashboard/d.go", "package dashboard\nimport _ \"example.com/m/tiers\"\n")
	got, err := checkLayers(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"internal/leaf/leaf.go: imports tiers, a layer above it",
		"sync/s.go: imports dashboard, a layer above it",
		"sync/s.go: imports fixture/f, which is test support or of no layer",
		"tiers/fulltext/c4.go: imports sync, a layer above it",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
