package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// journalQuery picks changes from the memory journal: those of one path
// (slash, from the home), or of one session, or all; newest first.
type journalQuery struct {
	path, session string
	limit         int
}

// noJournal is the answer of a home whose memory has no journal.
const noJournal = "no journal in this home (memory/ is not a git repository yet): no history to show\n"

// journalTimeout bounds a read of the journal.
const journalTimeout = 5 * time.Second

// journalLog is the one place the tools read history from. The journal is
// stock git in memory/ with the trailers Zylos-Source, Zylos-Session and
// Zylos-Tool on each commit; a home without memory/.git has none, and says
// so. Each change is one line: short hash, date, source, session, tool,
// subject and the files it touched.
func (h Home) journalLog(ctx context.Context, q journalQuery) (string, error) {
	mem := h.Layout.MemoryDir()
	if _, err := os.Stat(filepath.Join(mem, ".git")); errors.Is(err, os.ErrNotExist) {
		return noJournal, nil
	}
	ctx, cancel := context.WithTimeout(ctx, journalTimeout)
	defer cancel()
	const sep = "\x1f"
	format := strings.Join([]string{"%h", "%cI", "%(trailers:key=Zylos-Source,valueonly,separator=%x2C)",
		"%(trailers:key=Zylos-Session,valueonly,separator=%x2C)", "%(trailers:key=Zylos-Tool,valueonly,separator=%x2C)", "%s"}, sep)
	args := []string{"-C", mem, "log", "-n", strconv.Itoa(q.limit), "--name-only", "--format=" + "\x1e" + format}
	if q.session != "" {
		args = append(args, "--fixed-strings", "--grep", "Zylos-Session: "+q.session)
	}
	if q.path != "" {
		args = append(args, "--", strings.TrimPrefix(q.path, "memory/"))
	}
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return "", fmt.Errorf("read the memory journal: %s", strings.TrimSpace(string(exit.Stderr)))
		}
		return "", fmt.Errorf("read the memory journal: %w", err)
	}
	var b strings.Builder
	for _, commit := range strings.Split(string(out), "\x1e") {
		head, files, _ := strings.Cut(strings.TrimSpace(commit), "\n")
		f := strings.Split(head, sep)
		if len(f) != 6 {
			continue
		}
		fmt.Fprintf(&b, "%s %s", f[0], f[1])
		for i, label := range []string{"source", "session", "tool"} {
			if f[2+i] != "" {
				fmt.Fprintf(&b, " %s=%s", label, f[2+i])
			}
		}
		fmt.Fprintf(&b, " %s", f[5])
		if files = strings.Join(strings.Fields(files), ", "); files != "" {
			fmt.Fprintf(&b, " [%s]", files)
		}
		b.WriteString("\n")
	}
	if b.Len() == 0 {
		return "no changes recorded\n", nil
	}
	return b.String(), nil
}

type historyInput struct {
	Ref     string `json:"ref,omitempty" jsonschema:"the memory whose changes to show: a citation, path or record id; empty: all"`
	Session string `json:"session,omitempty" jsonschema:"only the changes of this Claude Code session id"`
	Limit   int    `json:"limit,omitempty" jsonschema:"most changes, default 20, at most 200"`
}

func (h Home) history(ctx context.Context, in historyInput) (string, error) {
	q := journalQuery{session: strings.TrimSpace(in.Session), limit: in.Limit}
	switch {
	case q.limit < 0:
		return "", errors.New("limit must be 0 or more")
	case q.limit == 0:
		q.limit = 20
	}
	q.limit = min(q.limit, 200)
	if strings.TrimSpace(in.Ref) != "" {
		r, err := h.resolve(in.Ref)
		if err != nil {
			return "", err
		}
		if r.c4 > 0 {
			return "", fmt.Errorf("ref %q: a conversation has no history; give a memory path or record id", in.Ref)
		}
		q.path = r.rel
	}
	return h.journalLog(ctx, q)
}
