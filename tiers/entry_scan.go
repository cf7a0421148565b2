package tiers

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/zylos/zylos-memory/tiers/entries"
)

// ScanEntries parses every tier file a consolidation looks at: core.md,
// reference/*.md and sessions/*.md. Entries cite files relative to the
// memory dir. Dot-files are skipped, as the Node scripts do; missing
// directories hold no entries.
func (l Layout) ScanEntries() ([]entries.Entry, error) {
	files := []string{"core.md"}
	for _, dir := range []string{"reference", "sessions"} {
		names, err := tierFiles(filepath.Join(l.MemoryDir(), dir))
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			files = append(files, dir+"/"+n)
		}
	}
	return parseFiles(l.MemoryDir(), files)
}

// parseFiles parses the files (relative to dir) on a few goroutines, as
// reading 3,650 small session logs is mostly waiting on the file system,
// and returns their entries in the order of files.
func parseFiles(dir string, files []string) ([]entries.Entry, error) {
	parsed := make([][]entries.Entry, len(files))
	errs := make([]error, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < scanWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				src, err := ReadTierFile(filepath.Join(dir, files[i]))
				var unparsed *entries.UnparsedError
				switch {
				case errors.As(err, &unparsed):
					parsed[i] = []entries.Entry{entries.Unparsed(files[i], unparsed)}
				case err != nil && !os.IsNotExist(err):
					errs[i] = fmt.Errorf("scan entries: %w", err)
				default:
					parsed[i] = entries.Parse(files[i], src)
				}
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	total := 0
	for i := range files {
		if errs[i] != nil {
			return nil, errs[i]
		}
		total += len(parsed[i])
	}
	out := make([]entries.Entry, 0, total)
	for _, es := range parsed {
		out = append(out, es...)
	}
	return out, nil
}

// scanWorkers bounds the goroutines of parseFiles.
const scanWorkers = 8

// tierFiles lists the regular, non-hidden .md files of dir, sorted.
func tierFiles(dir string) ([]string, error) {
	des, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("scan entries: %w", err)
	}
	var out []string
	for _, de := range des {
		name := de.Name()
		if de.Type().IsRegular() && !strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".md") {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, nil
}
