package testutil

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Tree returns every regular file under root as "== path\ncontent", sorted
// by path (lock files and *.cache files, which hold times and inodes, left
// out), so one golden file or one comparison shows the whole tree a run
// left behind.
func Tree(tb testing.TB, root string) string {
	tb.Helper()
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir // the memory journal, tested on its own
		}
		if err == nil && d.Type().IsRegular() && !strings.HasSuffix(p, ".lock") && !strings.HasSuffix(p, ".cache") {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		tb.Fatalf("read tree %s: %v", root, err)
	}
	sort.Strings(paths)
	var b strings.Builder
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(&b, "== %s\n%s", filepath.ToSlash(rel), data)
	}
	return b.String()
}
