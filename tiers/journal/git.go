package journal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// gitPath is the git binary, looked up once per process.
var gitPath = sync.OnceValues(func() (string, error) { return exec.LookPath("git") })

// git runs git on the journal's repository and work tree only: the
// variables that would point it elsewhere are dropped and the commit
// identity is the journal's.
func (j *Journal) git(ctx context.Context, stdin []byte, args ...string) (string, error) {
	return j.gitWith(ctx, nil, stdin, args...)
}

// gitWith is git with extra environment variables.
func (j *Journal) gitWith(ctx context.Context, extra []string, stdin []byte, args ...string) (string, error) {
	out, _, err := j.run(ctx, extra, stdin, 0, args...)
	return out, err
}

// gitCapped is git whose output is read up to limit bytes only (cut
// tells); git is stopped there: a diff of the whole memory can be large.
// The output is made valid UTF-8 for a page to show.
func (j *Journal) gitCapped(ctx context.Context, limit int, args ...string) (out string, cut bool, err error) {
	out, cut, err = j.run(ctx, nil, nil, limit, args...)
	return strings.ToValidUTF8(out, "\uFFFD"), cut, err
}

// run runs git; a limit above 0 bounds what is read of its output.
func (j *Journal) run(ctx context.Context, extra []string, stdin []byte, limit int, args ...string) (string, bool, error) {
	bin, err := gitPath()
	if err != nil {
		return "", false, fmt.Errorf("git not found: %w", err)
	}
	full := append([]string{"--git-dir=" + j.gitDir, "--work-tree=" + j.dir, "-c", "core.quotepath=off"}, args...)
	cmd := exec.CommandContext(ctx, bin, full...)
	cmd.Dir = j.dir
	cmd.Env = append(j.gitEnv(), extra...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	out := &cappedBuffer{limit: limit}
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &errb
	if err := cmd.Run(); err != nil && !out.cut {
		j.afterKilledGit(ctx)
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = strings.TrimSpace(out.String())
		}
		return out.String(), false, &GitError{Args: args, Err: err, Stderr: msg}
	}
	return out.String(), out.cut, nil
}

// cappedBuffer keeps the first limit bytes written to it (all when limit
// is 0) and fails the write past them, which stops the copy from git. The
// buffer is a field, not embedded: its ReadFrom would let io.Copy past Write.
type cappedBuffer struct {
	buf   bytes.Buffer
	limit int
	cut   bool
}

var errCapped = errors.New("output limit reached")

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.limit > 0 && b.buf.Len()+len(p) > b.limit {
		n, _ := b.buf.Write(p[:b.limit-b.buf.Len()])
		b.cut = true
		return n, errCapped
	}
	return b.buf.Write(p)
}

func (b *cappedBuffer) String() string { return b.buf.String() }

// GitError is a git command that failed.
type GitError struct {
	Args   []string
	Err    error
	Stderr string
}

func (e *GitError) Error() string {
	if e.Stderr == "" {
		return fmt.Sprintf("git %s: %v", e.Args[0], e.Err)
	}
	return fmt.Sprintf("git %s: %s", e.Args[0], firstLine(e.Stderr))
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimPrefix(line, "fatal: ")
}

// elsewhere are the variables that would point git at another
// repository, work tree, index or configuration.
var elsewhere = map[string]bool{
	"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_INDEX_FILE": true, "GIT_OBJECT_DIRECTORY": true,
	"GIT_ALTERNATE_OBJECT_DIRECTORIES": true, "GIT_COMMON_DIR": true, "GIT_NAMESPACE": true,
	"GIT_CEILING_DIRECTORIES": true, "GIT_CONFIG_PARAMETERS": true, "GIT_CONFIG_COUNT": true,
}

func (j *Journal) gitEnv() []string {
	var env []string
	vars := j.Environ
	if vars == nil {
		//processglobal: git runs in the environment of the process that runs it
		vars = os.Environ()
	}
	for _, kv := range vars {
		name, _, _ := strings.Cut(kv, "=")
		if elsewhere[name] || strings.HasPrefix(name, "GIT_AUTHOR_") || strings.HasPrefix(name, "GIT_COMMITTER_") {
			continue
		}
		env = append(env, kv) // GIT_SSH_COMMAND and the like reach the remote
	}
	when := ""
	if j.Now != nil {
		when = strconv.FormatInt(j.Now().Unix(), 10) + " +0000"
	}
	env = append(env, "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0",
		"GIT_AUTHOR_NAME="+authorName, "GIT_AUTHOR_EMAIL="+authorEmail,
		"GIT_COMMITTER_NAME="+authorName, "GIT_COMMITTER_EMAIL="+authorEmail)
	if when != "" {
		env = append(env, "GIT_AUTHOR_DATE="+when, "GIT_COMMITTER_DATE="+when)
	}
	return env
}
