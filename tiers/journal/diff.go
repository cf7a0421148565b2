package journal

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Patch is the diff rev made, every file of it, without a header; at most
// limit bytes of it (cut tells).
func (j *Journal) Patch(ctx context.Context, rev string, limit int) (patch string, cut bool, err error) {
	if err := j.readableRev(rev); err != nil {
		return "", false, err
	}
	return j.gitCapped(ctx, limit, "show", "--format=", "--patch", "--no-renames", "--no-color", "--no-ext-diff", "--root", "--end-of-options", rev, "--")
}

// RestoreDiff is what putting path back as rev had it would change: the
// file now against that version, at most limit bytes of it (cut tells).
func (j *Journal) RestoreDiff(ctx context.Context, rev, path string, limit int) (diff string, cut bool, err error) {
	if err := j.readableRev(rev); err != nil {
		return "", false, err
	}
	return j.gitCapped(ctx, limit, "diff", "--no-color", "--no-ext-diff", "--no-renames", "-R",
		"--src-prefix=restored/", "--dst-prefix=now/", "--end-of-options", rev, "--", ":(literal)"+path)
}

// Sizes are the size in bytes of every file of the memory as rev had it,
// by path relative to memory/.
func (j *Journal) Sizes(ctx context.Context, rev string) (map[string]int64, error) {
	if err := j.readableRev(rev); err != nil {
		return nil, err
	}
	out, err := j.git(ctx, nil, "ls-tree", "-r", "-l", "-z", "--end-of-options", rev)
	if err != nil {
		return nil, err
	}
	sizes := map[string]int64{}
	for _, line := range strings.Split(out, "\x00") {
		// <mode> SP <type> SP <object> SP+ <size> TAB <path>
		meta, path, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		if len(f) != 4 || f[1] != "blob" {
			continue
		}
		if n, err := strconv.ParseInt(f[3], 10, 64); err == nil {
			sizes[path] = n
		}
	}
	return sizes, nil
}

// readableRev is readable for a command about rev.
func (j *Journal) readableRev(rev string) error {
	if err := checkRev(rev); err != nil {
		return err
	}
	return j.readable()
}

// checkRev refuses what git would take for an option rather than a
// revision.
func checkRev(rev string) error {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return fmt.Errorf("%q is not a revision of the memory journal", rev)
	}
	return nil
}
