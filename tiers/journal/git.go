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
	full := append([]string{"--git-dir=" + j.gitDir, "--work-tree=" + j.dir}, isolated...)
	full = append(full, args...)
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
		return fmt.Sprintf("git %s: %v", e.command(), e.Err)
	}
	return fmt.Sprintf("git %s: %s", e.command(), firstLine(e.Stderr))
}

// command is the git command that ran, past any `-c key=value` in front.
func (e *GitError) command() string {
	for i := 0; i < len(e.Args); i++ {
		if e.Args[i] == "-c" {
			i++
			continue
		}
		return e.Args[i]
	}
	return "git"
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimPrefix(line, "fatal: ")
}

// isolated are the settings every git of the journal runs with, over
// whatever the repository's own configuration says: no hook runs, nothing
// is signed, diffs have git's default a/ and b/ prefixes (the loss check
// reads them), paths are not quoted, no excludes file but the
// repository's, and no fsmonitor or external diff is started.
var isolated = []string{
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.excludesFile=/dev/null",
	"-c", "core.attributesFile=/dev/null",
	"-c", "core.fsmonitor=false",
	"-c", "core.quotepath=off",
	"-c", "core.autocrlf=false",
	"-c", "core.safecrlf=false",
	"-c", "commit.gpgSign=false",
	"-c", "tag.gpgSign=false",
	"-c", "log.showSignature=false",
	"-c", "diff.noprefix=false",
	"-c", "diff.mnemonicPrefix=false",
	"-c", "diff.external=",
	"-c", "diff.relative=false",
	"-c", "color.ui=false",
	"-c", "i18n.commitEncoding=UTF-8",
	"-c", "i18n.logOutputEncoding=UTF-8",
}

// passed are the variables of the caller's environment git is given: the
// process's basics, and what a push to a remote needs (an ssh agent or
// command, proxies, certificates). Everything else, GIT_* above all
// (GIT_DIR, GIT_INDEX_FILE, GIT_LITERAL_PATHSPECS, GIT_CONFIG_*, ...), is
// left behind: the journal's git reads no one's settings but its own.
var passed = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "LANG": true, "TZ": true, "TMPDIR": true,
	"SSH_AUTH_SOCK": true, "SSH_ASKPASS": true, "GIT_SSH": true, "GIT_SSH_COMMAND": true, "GIT_SSH_VARIANT": true,
	"GIT_PROXY_COMMAND": true, "GIT_SSL_CAINFO": true, "GIT_SSL_CAPATH": true, "SSL_CERT_FILE": true, "SSL_CERT_DIR": true,
	"http_proxy": true, "https_proxy": true, "no_proxy": true, "all_proxy": true,
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true, "ALL_PROXY": true,
}

func (j *Journal) gitEnv() []string {
	vars := j.Environ
	if vars == nil {
		//processglobal: git runs in the environment of the process that runs it
		vars = os.Environ()
	}
	env := make([]string, 0, 24)
	for _, kv := range vars {
		name, _, _ := strings.Cut(kv, "=")
		if passed[name] || strings.HasPrefix(name, "LC_") {
			env = append(env, kv)
		}
	}
	env = append(env, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0",
		"GIT_AUTHOR_NAME="+authorName, "GIT_AUTHOR_EMAIL="+authorEmail,
		"GIT_COMMITTER_NAME="+authorName, "GIT_COMMITTER_EMAIL="+authorEmail)
	if j.Now != nil {
		when := strconv.FormatInt(j.Now().Unix(), 10) + " +0000"
		env = append(env, "GIT_AUTHOR_DATE="+when, "GIT_COMMITTER_DATE="+when)
	}
	return env
}

// Git is a git command on the repository gitDir with no work tree, run
// as the journal runs its own: none of the user's configuration, hooks or
// GIT_* variables reach it, environ (nil: this process's) gives it only
// what a fetch or a push needs, and the committer is the journal's. The
// team exchange keeps its repository this way.
func Git(ctx context.Context, environ []string, gitDir string, args ...string) (*exec.Cmd, error) {
	bin, err := gitPath()
	if err != nil {
		return nil, fmt.Errorf("git not found: %w", err)
	}
	full := append([]string{"--git-dir=" + gitDir}, isolated...)
	cmd := exec.CommandContext(ctx, bin, append(full, args...)...)
	cmd.Dir = gitDir
	cmd.Env = (&Journal{Environ: environ}).gitEnv()
	return cmd, nil
}
