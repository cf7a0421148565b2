package dashboard

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/zylos/zylos-memory/tiers/journal"
)

// The dashboard's restore and undo are the journal's own (the same calls
// as the restore and undo commands), recorded as commands of the
// dashboard. Each is a confirmation page (GET) and a form that posts to
// the same address with the CSRF token.
const (
	restoreCommand = "dashboard restore"
	undoCommand    = "dashboard undo"
)

// dashboardChange is a change the operator made on the dashboard: a
// command in no agent's session.
func dashboardChange(command string) journal.Change {
	return journal.Change{Source: journal.FromCommand, Command: command}
}

type restoreData struct {
	File   string // relative to memory/
	Change Change
	Diff   string
}

type journalResult struct {
	Lines []string
	File  string // the file restored, for its links
}

// restoreForm reads ?file=&rev= (or the posted form's): a file relative
// to memory/, confined to it, and a change id.
func (s *site) restoreForm(r *http.Request) (file, rev string, err error) {
	file, rev = r.FormValue("file"), r.FormValue("rev")
	if !isRev(rev) {
		return "", "", badRequest(fmt.Sprintf("Change %q: want a commit id (hex).", clip(rev, 80)))
	}
	if file == "" {
		return "", "", badRequest("No file given: want a path below memory/, such as reference/decisions.md.")
	}
	if err := journalPath(file); err != nil {
		return "", "", err
	}
	if err := s.insideMemory(file); err != nil {
		return "", "", err
	}
	return file, rev, nil
}

// insideMemory refuses a file whose nearest existing ancestor (itself,
// when it exists) leads out of memory/ by a symlink: a restore writes it.
func (s *site) insideMemory(rel string) error {
	mem, err := filepath.EvalSymlinks(s.o.Layout.MemoryDir())
	if err != nil {
		return notFound("memory/ does not exist.")
	}
	p := filepath.Join(s.o.Layout.MemoryDir(), filepath.FromSlash(rel))
	for {
		real, err := filepath.EvalSymlinks(p)
		if errors.Is(err, fs.ErrNotExist) {
			p = filepath.Dir(p)
			continue
		}
		if err != nil {
			return badRequest(fmt.Sprintf("File %q refused: %v.", clip(rel, 200), err))
		}
		if real != mem && !strings.HasPrefix(real, mem+string(filepath.Separator)) {
			return badRequest(fmt.Sprintf("File %q refused: it leads outside memory/.", clip(rel, 200)))
		}
		return nil
	}
}

// restoreTarget is the file and the change of a restore, checked: the
// change exists and the file was there at it.
func (s *site) restoreTarget(r *http.Request) (string, Change, error) {
	file, rev, err := s.restoreForm(r)
	if err != nil {
		return "", Change{}, err
	}
	cs, err := s.changes(r.Context(), journal.Query{Rev: rev, Detail: journal.Bare})
	if err != nil {
		return "", Change{}, unreadable(err)
	}
	if len(cs) != 1 {
		return "", Change{}, notFound("No change " + rev + " in the journal.")
	}
	c := cs[0]
	if _, err := s.journal(r.Context()).Version(r.Context(), c.Rev, file); err != nil {
		return "", Change{}, unreadable(err)
	}
	return file, c, nil
}

// restoreConfirm shows what restoring a file as at a change would do.
func (s *site) restoreConfirm(r *http.Request) (page, error) {
	file, c, err := s.restoreTarget(r)
	if err != nil {
		return page{}, err
	}
	diff, cut, err := s.journal(r.Context()).RestoreDiff(r.Context(), c.Rev, file, maxDiff)
	if err != nil {
		return page{}, unreadable(err)
	}
	return page{Name: "restore", Title: "Restore memory/" + file, Data: restoreData{File: file, Change: c, Diff: withCut(diff, cut)}}, nil
}

// restore puts the file back as at the change, as the restore command
// does: a reference file through the bridge, so that its records follow.
func (s *site) restore(r *http.Request) (page, error) {
	file, c, err := s.restoreTarget(r)
	if err != nil {
		return page{}, err
	}
	h := s.home(r.Context())
	var notes []string
	h.Warn = func(n string) { notes = append(notes, n) }
	// The operator's change, in no session, whatever the service's
	// environment names; the file by its absolute path, never read
	// against the service's working directory.
	msg, err := h.Restore(r.Context(), dashboardChange(restoreCommand), filepath.Join(h.Layout.MemoryDir(), filepath.FromSlash(file)), c.Rev)
	if err != nil {
		return page{}, journalError(err)
	}
	return page{Name: "journalResult", Title: "Restored memory/" + file,
		Data: journalResult{Lines: append([]string{msg}, notes...), File: file}}, nil
}

type undoData struct {
	Session string
	Changes []journal.Entry
}

func sessionForm(r *http.Request) (string, error) {
	session := r.FormValue("session")
	if session == "" || len(session) > 200 || !utf8.ValidString(session) || strings.ContainsAny(session, "\x00\n\r") ||
		strings.HasPrefix(session, "-") {
		return "", badRequest(fmt.Sprintf("Session %q: want a session id, as the timeline shows it.", clip(session, 80)))
	}
	return session, nil
}

// undoConfirm lists the changes undoing a session would revert: the
// journal's own list, the one undo reverts.
func (s *site) undoConfirm(r *http.Request) (page, error) {
	session, err := sessionForm(r)
	if err != nil {
		return page{}, err
	}
	entries, err := s.journal(r.Context()).History(r.Context(), journal.Query{Session: session})
	if err != nil {
		return page{}, unreadable(err)
	}
	if len(entries) == 0 {
		return page{}, notFound(fmt.Sprintf("%v %q: nothing to undo.", journal.ErrUnknownSession, session))
	}
	return page{Name: "undo", Title: "Undo session " + session, Data: undoData{session, entries}}, nil
}

// undo reverts every change of the session, as the undo command does.
func (s *site) undo(r *http.Request) (page, error) {
	session, err := sessionForm(r)
	if err != nil {
		return page{}, err
	}
	h := s.home(r.Context())
	lines, err := h.Undo(r.Context(), dashboardChange(undoCommand), session, false)
	if err != nil {
		return page{}, journalError(err)
	}
	return page{Name: "journalResult", Title: "Undid session " + session,
		Data: journalResult{Lines: lines}}, nil
}

// journalError is a refused restore or undo: the journal's reason, as a
// page; nothing was changed.
func journalError(err error) error {
	if errors.Is(err, journal.ErrUnknownSession) {
		return notFound(err.Error())
	}
	return &httpError{http.StatusConflict, err.Error()}
}
