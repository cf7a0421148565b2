package recall

import (
	"os"
	"path/filepath"
	"strings"
)

// citePath is p relative to base with forward slashes, or p itself when it
// is not below base.
func citePath(base, p string) string {
	if rel, err := filepath.Rel(base, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(p)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
