package tiers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/regfile"
)

// ErrSnapshotSkipped marks a daily snapshot that was not taken for a
// reason that is not a failure: no git, nothing changed, or a repository
// in the middle of something (a merge, a rebase, another git's lock).
var ErrSnapshotSkipped = errors.New("snapshot skipped")

// snapshotTimeout bounds every git command of a snapshot.
const snapshotTimeout = time.Minute

// Snapshot commits the memory directory to its own git repository, as
// zylos-core v0.7.1's daily-commit.js does: `git init` (user Zylos
// <zylos@local>) on first use, then everything under memory/ as
// `memory: daily snapshot YYYY-MM-DD`. Unlike that script it never commits
// the service state under memory/.state/ (excluded in .git/info/exclude),
// never reaches outside memory/ (GIT_DIR and the like are ignored), and
// answers ErrSnapshotSkipped rather than failing when git is missing or
// the repository is busy. now must be in the home's timezone.
func Snapshot(l Layout, now time.Time) (string, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("%w: git not found", ErrSnapshotSkipped)
	}
	dir := l.MemoryDir()
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return "", fmt.Errorf("snapshot: %s is not a directory", dir)
	}
	ctx, cancel := context.WithTimeout(context.Background(), snapshotTimeout)
	defer cancel()
	run := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, git, args...)
		cmd.Dir = dir
		cmd.Env = gitEnv()
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(string(out)))
		}
		return string(out), nil
	}
	gitDir := filepath.Join(dir, ".git")
	if _, err := os.Stat(gitDir); errors.Is(err, os.ErrNotExist) {
		for _, args := range [][]string{{"init", "-q"}, {"config", "user.name", "Zylos"}, {"config", "user.email", "zylos@local"}} {
			if _, err := run(args...); err != nil {
				return "", fmt.Errorf("snapshot: %w", err)
			}
		}
	}
	if busy := repoBusy(gitDir); busy != "" {
		return "", fmt.Errorf("%w: %s", ErrSnapshotSkipped, busy)
	}
	if err := excludeState(gitDir); err != nil {
		return "", fmt.Errorf("snapshot: %w", err)
	}
	status, err := run("status", "--porcelain", "--", ".")
	if err != nil {
		return "", fmt.Errorf("snapshot: %w", err)
	}
	if strings.TrimSpace(status) == "" {
		//lint:ignore ST1005 daily-commit.js prints this sentence
		return "", fmt.Errorf("%w: No memory changes to commit.", ErrSnapshotSkipped)
	}
	if _, err := run("add", "-A", "--", "."); err != nil {
		return "", fmt.Errorf("snapshot: %w", err)
	}
	msg := "memory: daily snapshot " + now.Format("2006-01-02")
	if _, err := run("commit", "-q", "--no-verify", "-m", msg); err != nil {
		return "", fmt.Errorf("snapshot: %w", err)
	}
	head, err := run("rev-parse", "--short", "HEAD")
	if err != nil {
		return "", fmt.Errorf("snapshot: %w", err)
	}
	return fmt.Sprintf("%s (%s)", msg, strings.TrimSpace(head)), nil
}

// gitEnv is the process environment without the variables that would
// point git at another repository, work tree or index.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_CEILING_DIRECTORIES":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_TERMINAL_PROMPT=0")
}

// repoBusy says why the repository cannot take a commit now: another git
// holds its index lock, or a merge, rebase, cherry-pick or revert is under
// way (a user's hand work the snapshot must not mix into).
func repoBusy(gitDir string) string {
	for _, name := range []string{"index.lock", "MERGE_HEAD", "rebase-merge", "rebase-apply", "CHERRY_PICK_HEAD", "REVERT_HEAD"} {
		if _, err := os.Stat(filepath.Join(gitDir, name)); err == nil {
			return "the memory repository is busy (" + name + "); no snapshot this time"
		}
	}
	return ""
}

// excludeState keeps the service's own state out of the snapshots.
func excludeState(gitDir string) error {
	path := filepath.Join(gitDir, "info", "exclude")
	data, err := regfile.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "/.state/" {
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if len(data) > 0 && !strings.HasSuffix(string(data), "\n") {
		data = append(data, '\n')
	}
	return atomicfile.WriteFile(path, append(data, "/.state/\n"...), 0o644)
}
