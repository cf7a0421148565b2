package dashboard

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers"
)

// maxShown bounds the bytes of one file a page reads and shows.
const maxShown = 4 << 20

// memPath checks a path taken from a request, as the dashboard cites
// files (relative to the home: memory/reference/decisions.md), and
// returns the file it names. Only a clean path below memory/ passes: no
// "..", no absolute path, no dot-file or dot-dir (.state,
// .git), and no symlink that leads out of memory/.
func memPath(l tiers.Layout, rel string) (string, error) {
	bad := func(why string) error { return badRequest(fmt.Sprintf("Path %q refused: %s.", clip(rel, 200), why)) }
	switch {
	case rel == "":
		return "", bad("no path given")
	case len(rel) > 1024 || !utf8.ValidString(rel) || strings.ContainsRune(rel, 0):
		return "", bad("not a memory path")
	case path.IsAbs(rel) || path.Clean(rel) != rel:
		return "", bad("not a clean relative path")
	}
	parts := strings.Split(rel, "/")
	if parts[0] != "memory" || len(parts) < 2 {
		return "", bad("outside memory/")
	}
	for _, p := range parts {
		if p == ".." || strings.HasPrefix(p, ".") {
			return "", bad("hidden or parent directory")
		}
	}
	abs := filepath.Join(l.ZylosDir, filepath.FromSlash(rel))
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", notFound(fmt.Sprintf("%s does not exist.", rel))
	}
	if err != nil {
		return "", bad(err.Error())
	}
	mem, err := filepath.EvalSymlinks(l.MemoryDir())
	if err != nil {
		return "", notFound("memory/ does not exist.")
	}
	if !strings.HasPrefix(real, mem+string(filepath.Separator)) {
		return "", bad("it leads outside memory/")
	}
	return abs, nil
}

// readShown reads a memory file for a page: regular files only, at most
// maxShown bytes (cut says so).
func readShown(abs string) (data []byte, cut bool, err error) {
	f, err := regfile.Open(abs)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, maxShown+1))
	if err != nil {
		return nil, false, err
	}
	if len(data) > maxShown {
		return data[:maxShown], true, nil
	}
	return data, false, nil
}

// clip shortens s for a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
