package regfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// directOpen matches the os calls that open a file the blocking way.
var directOpen = regexp.MustCompile(`\bos\.(Open|OpenFile|ReadFile)\(`)

// mayOpenDirectly are the files allowed to: the directory open that fsyncs
// a directory. (The test fixtures under internal/ open their own files.)
var mayOpenDirectly = map[string]bool{
	"internal/atomicfile/atomicfile.go": true,
}

// Every read of a path from the home or the user goes through this package,
// so a FIFO planted anywhere cannot hang a command. The check is over the
// source, so a new os.ReadFile fails here with the place to change.
func TestNoDirectOpens(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case strings.HasPrefix(d.Name(), "."), d.Name() == "testdata",
				rel == "internal/testutil", rel == "fixture/benchtree", rel == "fixture/c4fixture":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || mayOpenDirectly[rel] ||
			strings.HasPrefix(rel, "internal/regfile/") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			if code, _, _ := strings.Cut(line, "//"); directOpen.MatchString(code) {
				t.Errorf("%s:%d: %s\n\tuse regfile.Open, OpenFile or ReadFile: a FIFO there would block forever", rel, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
