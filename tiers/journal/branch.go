package journal

import (
	"path/filepath"
	"strings"

	"github.com/zylos/zylos-memory/internal/regfile"
)

// The journal is a branch, not whatever HEAD names: a user who checks out
// an old revision to look at it (`git -C memory checkout REV`) leaves HEAD
// detached, and the journal's commits still go to its branch, never onto
// the detached HEAD, where they would be lost at the next checkout. The
// branch is the one HEAD named when last attached, kept in branchFile.

const branchFile = "zylos-journal-branch"

// branchRef is the journal's branch (refs/heads/NAME), and whether HEAD
// is on it: false when HEAD is detached or on another branch.
func (j *Journal) branchRef() (ref string, attached bool) {
	ref, attached, _ = j.headState()
	return ref, attached
}

// headState is branchRef and what HEAD says ("" when it cannot be read),
// from one read of HEAD.
func (j *Journal) headState() (ref string, attached bool, head string) {
	data, err := regfile.ReadFile(filepath.Join(j.gitDir, "HEAD"))
	if err == nil {
		head = strings.TrimSpace(string(data))
	}
	kept := j.keptBranch()
	if name, ok := strings.CutPrefix(head, "ref: "); ok && strings.HasPrefix(name, "refs/heads/") {
		if kept == "" || kept == name || readRef(j.gitDir, kept) == "" {
			return name, true, head
		}
		return kept, false, head // on a branch of the user's
	}
	if kept != "" {
		return kept, false, head
	}
	for _, name := range []string{"refs/heads/master", "refs/heads/main"} {
		if readRef(j.gitDir, name) != "" {
			return name, false, head
		}
	}
	return "refs/heads/master", false, head
}

// keepBranch records the branch HEAD is on as the journal's, when it is
// (a committer calls it: reading the journal writes nothing).
func (j *Journal) keepBranch() {
	if ref, attached := j.branchRef(); attached && j.keptBranch() != ref {
		writeState(filepath.Join(j.gitDir, branchFile), []byte(ref+"\n"))
	}
}

// keptBranch is the branch last recorded as the journal's, "" when none.
func (j *Journal) keptBranch() string {
	data, err := regfile.ReadFile(filepath.Join(j.gitDir, branchFile))
	if err != nil {
		return ""
	}
	name := strings.TrimSpace(string(data))
	if !strings.HasPrefix(name, "refs/heads/") || strings.Contains(name, "..") {
		return ""
	}
	return name
}

// Detached says, when HEAD is not on the journal's branch, what it is
// on: a revision or another branch; "" when it is on the journal's.
func (j *Journal) Detached() (at, branch string) {
	if exists, err := j.checkRepo(); err != nil || !exists {
		return "", "" // no repository the journal uses: its problem is told
	}
	ref, attached, head := j.headState()
	switch {
	case attached:
		return "", ""
	case head == "":
		return "an unreadable HEAD", strings.TrimPrefix(ref, "refs/heads/")
	}
	if name, ok := strings.CutPrefix(head, "ref: "); ok {
		at = strings.TrimPrefix(name, "refs/heads/")
	} else {
		at = short(head)
	}
	return at, strings.TrimPrefix(ref, "refs/heads/")
}
