package journal

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/regfile"
)

// Status is the journal's state as doctor reports it.
type Status struct {
	Off       bool
	Problem   string // what keeps the journal from working; "" when it works
	Last      *Entry // the last commit, nil when none
	Pending   int    // files changed and not yet committed
	OldestAge time.Duration
	Check     string // "" when `git fsck` accepts the repository
	Remote    string
	Behind    int    // commits the remote lacks; -1 unknown
	Outer     string // the git work tree the home sits inside, if any
	// CheckedOut is what memory/ is checked out at when it is not the
	// journal's branch (Branch): an old revision, or another branch.
	CheckedOut, Branch string
	Waiting            Waiting // changes queued with their authors
	Blocked            string  // since when and by what commits wait; "" when they do not
}

// State reads the journal's state; fsck runs the repository check.
func (j *Journal) State(ctx context.Context, fsck bool) Status {
	s := Status{Off: j.Off(), Behind: -1, Outer: j.outerTree(ctx)}
	exists, err := j.checkRepo()
	switch {
	case err != nil:
		s.Problem = err.Error()
		return s
	case !exists:
		if !s.Off {
			s.Problem = "memory/.git does not exist yet (the next memory write creates it)"
		}
		return s
	}
	if data, err := regfile.ReadFile(filepath.Join(j.state, problemFile)); err == nil {
		s.Problem = strings.TrimSpace(string(data))
	}
	s.CheckedOut, s.Branch = j.Detached()
	s.Waiting, s.Blocked = j.waiting(), j.blockedSince()
	if es, err := j.History(ctx, Query{Limit: 1}); err == nil && len(es) == 1 {
		s.Last = &es[0]
	}
	paths, all := j.ChangedPaths()
	if all {
		out, err := j.git(ctx, nil, "status", "--porcelain", "-z", "--untracked-files=all")
		if err == nil {
			for _, f := range strings.Split(out, "\x00") {
				if len(f) > 3 {
					paths = append(paths, f[3:])
				}
			}
		}
	}
	s.Pending = len(paths)
	//processglobal: the wall clock, which file modification times are compared with
	now := time.Now()
	for _, p := range paths {
		if info, err := os.Stat(filepath.Join(j.dir, filepath.FromSlash(p))); err == nil {
			if age := now.Sub(info.ModTime()); age > s.OldestAge {
				s.OldestAge = age
			}
		}
	}
	if fsck {
		if _, err := j.git(ctx, nil, "fsck", "--no-progress", "--no-dangling", "--connectivity-only"); err != nil {
			s.Check = err.Error()
		}
	}
	if s.Remote = j.Remote(ctx); s.Remote != "" {
		s.Behind = j.Behind(ctx)
	}
	return s
}

// outerTree is the top of a git work tree the home itself sits in.
func (j *Journal) outerTree(ctx context.Context) string {
	bin, err := gitPath()
	if err != nil {
		return ""
	}
	cmd := exec.CommandContext(ctx, bin, "rev-parse", "--show-toplevel")
	cmd.Dir = j.layout.ZylosDir
	cmd.Env = (&Journal{}).gitEnv()
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// Lines is the state as doctor's lines: status (ok, warn), name, detail.
func (s Status) Lines(loc *time.Location) [][3]string {
	if s.Off {
		return [][3]string{{"warn", "journal", "off: changes to memory are not kept (init --journal=true turns it on)"}}
	}
	var out [][3]string
	if s.Problem != "" {
		out = append(out, [3]string{"warn", "journal", s.Problem + " (memory writes go on)"})
	} else if s.Last != nil {
		out = append(out, [3]string{"ok", "journal", "last change " + s.Last.Line(loc)})
	}
	switch {
	case s.Pending == 0:
	case s.OldestAge > time.Minute:
		out = append(out, [3]string{"warn", "journal pending", fmt.Sprintf("%d %s not yet committed, the oldest for %s (is the memory service running?)",
			s.Pending, plural(s.Pending, "file", "files"), s.OldestAge.Round(time.Second))})
	default:
		out = append(out, [3]string{"ok", "journal pending", fmt.Sprintf("%d %s not yet committed (%s old)", s.Pending, plural(s.Pending, "file", "files"), s.OldestAge.Round(time.Second))})
	}
	if s.Check != "" {
		out = append(out, [3]string{"warn", "journal check", "git fsck: " + s.Check})
	}
	if s.Remote != "" {
		switch {
		case s.Behind < 0:
			out = append(out, [3]string{"warn", "journal remote", s.Remote + ": never pushed yet"})
		case s.Behind == 0:
			out = append(out, [3]string{"ok", "journal remote", s.Remote + ": up to date"})
		default:
			out = append(out, [3]string{"warn", "journal remote", fmt.Sprintf("%s: %d %s behind", s.Remote, s.Behind, plural(s.Behind, "commit", "commits"))})
		}
	}
	if s.Waiting.Count > 0 {
		out = append(out, [3]string{"warn", "journal queue", fmt.Sprintf("%d %s to be committed with their authors, the oldest since %s: %s",
			s.Waiting.Count, plural(s.Waiting.Count, "change waits", "changes wait"), s.Waiting.Oldest.In(loc).Format("2006-01-02 15:04:05"), s.Waiting.Why)})
	}
	if s.Blocked != "" {
		out = append(out, [3]string{"warn", "journal blocked", "commits have waited " + s.Blocked})
	}
	if s.CheckedOut != "" {
		out = append(out, [3]string{"warn", "journal checkout", fmt.Sprintf("memory/ is checked out at %s, not the journal's branch %s: the journal commits to %s, and edits made in this checkout are not kept (git -C memory checkout %s returns)",
			s.CheckedOut, s.Branch, s.Branch, s.Branch)})
	}
	if s.Outer != "" {
		out = append(out, [3]string{"ok", "journal nesting", "the home is inside the git work tree " + s.Outer +
			"; memory/ has a repository of its own, which that one sees as a nested repository (it does not track memory/'s files)"})
	}
	return out
}
