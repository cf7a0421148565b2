package tiers

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// statusFile is one line of the status report.
type statusFile struct {
	path     string
	size     int64
	modified time.Time
}

// LayoutStatus is the memory-status report of the home's layout: v0.7.1's
// budgets of identity, state and references in a v0.7 home.
func LayoutStatus(l Layout, w io.Writer) error {
	k := l.Kind()
	return k.status(k, l, w)
}

// Status writes memory-status.js's report: every file under memory/ (dot
// entries skipped, names in byte order, symlinks followed like statSync),
// its size, UTC modification minute, totals and the core.md budget line.
func Status(l Layout, w io.Writer) error {
	files, err := scanMemory(l.MemoryDir(), "", nil)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("Memory Status Report\n====================\n\n")
	var total int64
	var core *statusFile
	for i, f := range files {
		marker := ""
		if f.path == "core.md" {
			core = &files[i]
			if f.size > CoreSizeCap {
				marker = " [OVER CAP]"
			}
		}
		fmt.Fprintf(&b, "%8s  %s  %s%s\n", formatSize(f.size), f.modified.UTC().Format("2006-01-02 15:04"), f.path, marker)
		total += f.size
	}
	fmt.Fprintf(&b, "\nTotal: %s across %d files\n", formatSize(total), len(files))
	if core != nil {
		// Math.round(size / 3072 * 100), in the same float64 steps.
		pct := math.Floor(float64(core.size)/CoreSizeCap*100 + 0.5)
		fmt.Fprintf(&b, "Core.md budget: %s / 3.0KB (%d%%)\n", formatSize(core.size), int64(pct))
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write status: %w", err)
	}
	return nil
}

// scanMemory is memory-status.js's scanDir: depth first, a missing dir is
// empty, a real directory is entered, anything else (symlinks included) is
// stat'ed through.
func scanMemory(dir, prefix string, files []statusFile) ([]statusFile, error) {
	es, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) && prefix == "" {
		return files, nil
	}
	if err != nil {
		return nil, fmt.Errorf("scan memory: %w", err)
	}
	for _, e := range es {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		full := filepath.Join(dir, e.Name())
		display := nodeString([]byte(e.Name()))
		if prefix != "" {
			display = prefix + "/" + display
		}
		if e.IsDir() {
			if files, err = scanMemory(full, display, files); err != nil {
				return nil, err
			}
			continue
		}
		info, err := os.Stat(full)
		if err != nil {
			return nil, fmt.Errorf("scan memory: %w", err)
		}
		files = append(files, statusFile{path: display, size: info.Size(), modified: nodeStatTime(info.ModTime())})
	}
	return files, nil
}
