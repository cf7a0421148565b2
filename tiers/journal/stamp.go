package journal

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/zylos/zylos-memory/internal/regfile"
)

// stamp is the memory tree as seen by stat: path (relative to memory/,
// slash-separated) to size and modification time. It is what lets a hook
// that changed nothing skip git.
type stamp map[string]fileStamp

type fileStamp struct {
	size  int64
	mtime int64 // Unix nanoseconds; racy for a file that may change again unseen
}

// racy marks a modification time too recent to trust (see loadStamp).
const racy = -1

// skipName reports whether a file or directory under memory/ is outside
// the journal: git's own, and what the journal excludes.
func skipName(rel, name string, dir bool) bool {
	// A repository nested in memory/ is its own, never memory files.
	return name == ".git" || isExcluded(rel, name, dir)
}

// walk stamps the memory tree.
func walk(dir string) (stamp, error) {
	st := stamp{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while walking: the next stamp sees it
			}
			return err
		}
		if path == dir {
			return nil
		}
		rel := filepath.ToSlash(path[len(dir)+1:])
		if skipName(rel, d.Name(), d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		st[rel] = fileStamp{size: info.Size(), mtime: info.ModTime().UnixNano()}
		return nil
	})
	return st, err
}

// changed lists the paths whose stamp differs between old and cur.
func changed(old, cur stamp) []string {
	var out []string
	for p, c := range cur {
		if o, ok := old[p]; !ok || o != c || c.mtime == racy {
			out = append(out, p)
		}
	}
	for p := range old {
		if _, ok := cur[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

func (j *Journal) stampPath() string { return filepath.Join(j.gitDir, stampFile) }

// loadStamp reads the stamp saved after the last commit; ok is false when
// there is none (the first commit, or a stamp a failure dropped). As git
// does with its index, a file modified in the clock tick the stamp was
// written in or later counts as changed: a second write in that tick, of
// the same size, would leave its stamp as it was.
func (j *Journal) loadStamp() (st stamp, ok bool) {
	f, err := regfile.Open(j.stampPath())
	if err != nil {
		return nil, false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, false
	}
	written := info.ModTime().UnixNano()
	st = stamp{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 3)
		if len(f) != 3 {
			return nil, false
		}
		path, err := strconv.Unquote(f[2])
		if err != nil {
			return nil, false // a stamp of an older journal: git tells this once
		}
		mtime, err1 := strconv.ParseInt(f[0], 10, 64)
		size, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, false
		}
		if mtime >= written {
			mtime = racy
		}
		st[path] = fileStamp{size: size, mtime: mtime}
	}
	return st, sc.Err() == nil
}

// saveStamp keeps st as the tree last committed.
func (j *Journal) saveStamp(st stamp) error {
	paths := make([]string, 0, len(st))
	for p := range st {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b bytes.Buffer
	for _, p := range paths {
		// Quoted: a path may hold a newline or any other byte.
		fmt.Fprintf(&b, "%d %d %s\n", st[p].mtime, st[p].size, strconv.Quote(p))
	}
	return writeState(j.stampPath(), b.Bytes())
}

// dropStamp makes the next commit ask git what changed.
func (j *Journal) dropStamp() { os.Remove(j.stampPath()) }
