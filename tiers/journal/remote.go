package journal

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// remoteName is the remote the journal is pushed to.
const remoteName = "origin"

// SetRemote makes url the journal's remote.
func (j *Journal) SetRemote(ctx context.Context, url string) error {
	if strings.TrimSpace(url) == "" || strings.HasPrefix(url, "-") {
		return fmt.Errorf("%q is not a git remote URL", url)
	}
	release, err := j.lock(j.LockWait)
	if err != nil {
		return err
	}
	defer release()
	if err := j.ensure(ctx); err != nil {
		return err
	}
	if cur, err := j.git(ctx, nil, "config", "--get", "remote."+remoteName+".url"); err == nil && strings.TrimSpace(cur) != "" {
		_, err = j.git(ctx, nil, "remote", "set-url", remoteName, url)
		return err
	}
	_, err = j.git(ctx, nil, "remote", "add", remoteName, url)
	return err
}

// Remote is the journal's remote URL, "" when none is set.
func (j *Journal) Remote(ctx context.Context) string {
	if exists, err := j.checkRepo(); err != nil || !exists {
		return ""
	}
	out, err := j.git(ctx, nil, "config", "--get", "remote."+remoteName+".url")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// branch is the name of the journal's branch.
func (j *Journal) branch() string {
	ref, _ := j.branchRef()
	return strings.TrimPrefix(ref, "refs/heads/")
}

// Behind is how many commits the remote lacks, as of the last push or
// fetch; -1 when it is not known (never pushed).
func (j *Journal) Behind(ctx context.Context) int {
	b := j.branch()
	out, err := j.git(ctx, nil, "rev-list", "--count", remoteName+"/"+b+"..refs/heads/"+b)
	if err != nil {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		return -1
	}
	return n
}

// Push sends the journal to its remote. History is never rewritten, so a
// push is always a fast-forward unless the remote has commits of its own
// (another home pushing there), which is refused and reported.
func (j *Journal) Push(ctx context.Context) error {
	b := j.branch()
	if b == "" {
		return fmt.Errorf("the memory journal has no branch to push")
	}
	// The branch only: never a detached HEAD, never another ref.
	_, err := j.git(ctx, nil, "push", "--quiet", remoteName, "refs/heads/"+b+":refs/heads/"+b)
	if err != nil {
		return err
	}
	// The push updates the remote-tracking ref that Behind counts from.
	_, err = j.git(ctx, nil, "update-ref", "refs/remotes/"+remoteName+"/"+b, "refs/heads/"+b)
	return err
}

// Clone makes memoryDir a copy of the journal at url, memory files and
// history. The directory must not exist or be empty.
func Clone(ctx context.Context, url, memoryDir string) error {
	if entries, err := os.ReadDir(memoryDir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s is not empty; init --from makes a new home", memoryDir)
	}
	bin, err := gitPath()
	if err != nil {
		return fmt.Errorf("git not found: %w", err)
	}
	args := append(append([]string(nil), isolated...), "clone", "--quiet", "--origin", remoteName, "--", url, memoryDir)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = (&Journal{}).gitEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("clone %s: %s", url, firstLine(strings.TrimSpace(string(out))))
	}
	return nil
}

// Pusher pushes a journal after changes: at most once per Batch, and
// after a failure not before a backoff that doubles up to MaxBackoff.
type Pusher struct {
	J          *Journal
	Batch      time.Duration
	MaxBackoff time.Duration

	pushed  string // HEAD as last pushed
	next    time.Time
	backoff time.Duration
	LastErr error
}

// Tick pushes when HEAD moved since the last push and the time has come.
func (p *Pusher) Tick(ctx context.Context, now time.Time) (pushed bool) {
	head := p.J.head()
	if head == "" || head == p.pushed || now.Before(p.next) {
		return false
	}
	if p.J.Remote(ctx) == "" {
		p.pushed = head // nothing to push to; `journal remote set` pushes itself
		return false
	}
	if err := p.J.Push(ctx); err != nil {
		p.LastErr = err
		if p.backoff == 0 {
			p.backoff = p.Batch
		} else if p.backoff *= 2; p.backoff > p.MaxBackoff {
			p.backoff = p.MaxBackoff
		}
		p.next = now.Add(p.backoff)
		return false
	}
	p.pushed, p.backoff, p.LastErr = head, 0, nil
	p.next = now.Add(p.Batch)
	return true
}
