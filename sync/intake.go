package c4sync

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/jsstring"
	"github.com/zylos/zylos-memory/internal/lazy"
)

// Intake holds what the checks and transformations of an inbound message
// need, as the v2-era c4-receive.js applies them before queueing.
type Intake struct {
	SkillsDir      string // $ZYLOS_DIR/.claude/skills: one directory per channel
	AttachmentsDir string // $ZYLOS_DIR/comm-bridge/attachments
	Now            func() time.Time
	// AsGiven stores a message as zylos v0.7.1's c4-receive.js does: its
	// content as given (no reply route, no attachment, whatever its size)
	// and no endpoint under noReply; the route is added where the agent
	// is shown the message (SessionInit). See tiers.C4Dialect.
	AsGiven bool
}

// largeMessage is the size in bytes above which a message is stored as a
// file and queued as a preview (FILE_SIZE_THRESHOLD of the v2-era C4).
const largeMessage = 1500

// previewUnits is the length of that preview in UTF-16 code units, as
// JavaScript's substring counts (CONTENT_PREVIEW_CHARS).
const previewUnits = 100

// ErrIntake reports a message the intake refuses (bad channel or endpoint).
var ErrIntake = errors.New("refused message")

var safeEndpoint = lazy.Regexp(`^[a-zA-Z0-9_-]+$`)

// quotableEndpoint is an endpoint v0.7.1 accepts (its ids carry `|msg:`
// and the like) that still reads back whole between the double quotes of
// a reply route: no quote, backslash, dollar, backtick or control byte.
var quotableEndpoint = lazy.Regexp("^[^\"\\\\$`\\x00-\\x1f\\x7f]+$")

// Accepted is a message ready to queue and whether its content went to a file.
type Accepted struct {
	Message
	File string // the attachment holding the full message, "" when inline
}

// Accept checks m as c4-receive.js does and returns what to queue: the
// channel must be an installed skill directory unless noReply, the endpoint
// a plain id; a reply route is appended unless noReply, and a message over
// 1500 bytes is written to attachments/<ms>-<pid>/message.txt and queued as
// its first 100 characters plus the file's path.
func (in Intake) Accept(m Message, noReply bool) (Accepted, error) {
	if !noReply {
		if err := in.checkChannel(m.Channel); err != nil {
			return Accepted{}, err
		}
	}
	if in.AsGiven {
		if m.Endpoint != "" && !quotableEndpoint().MatchString(m.Endpoint) {
			return Accepted{}, fmt.Errorf("%w: invalid endpoint %q (no quotes, backslashes, $, backticks or control characters)", ErrIntake, m.Endpoint)
		}
		if noReply {
			m.Endpoint = ""
		}
		return Accepted{Message: m}, nil
	}
	if m.Endpoint != "" && !safeEndpoint().MatchString(m.Endpoint) {
		return Accepted{}, fmt.Errorf("%w: invalid endpoint %q (letters, digits, _ and - only)", ErrIntake, m.Endpoint)
	}
	suffix := ""
	if !noReply {
		suffix = ReplyRoute(in.SkillsDir, m.Channel, m.Endpoint)
	}
	full := m.Content + suffix
	if len(full) <= largeMessage {
		m.Content = full
		return Accepted{Message: m}, nil
	}
	now := in.Now()
	file := filepath.Join(in.AttachmentsDir, fmt.Sprintf("%d-%d", now.UnixMilli(), os.Getpid()), "message.txt")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return Accepted{}, fmt.Errorf("store large message: %w", err)
	}
	if err := atomicfile.WriteFile(file, []byte(full), 0o644); err != nil {
		return Accepted{}, fmt.Errorf("store large message: %w", err)
	}
	preview := jsstring.Substring(m.Content, previewUnits)
	ellipsis := ""
	if len(preview) < len(m.Content) {
		ellipsis = "..."
	}
	m.Content = fmt.Sprintf("%s%s\n\n[C4] Full message (%.1fKB) at: %s%s", preview, ellipsis, float64(len(full))/1024, file, suffix)
	return Accepted{Message: m, File: file}, nil
}

// Answer is the line `c4 receive` prints for a queued message: v0.7.1's
// `[C4] Message queued (id=N)` for a message taken as given, else the
// v2-era QueuedLine, ending `, file)` when its content went to a file.
func (in Intake) Answer(id int64, a Accepted) string {
	if in.AsGiven {
		return fmt.Sprintf("[C4] Message queued (id=%d)", id)
	}
	line := QueuedLine(id, a.Message)
	if a.File != "" {
		line = strings.TrimSuffix(line, ")") + ", file)"
	}
	return line
}

// checkChannel accepts a channel that names a directory under the skills
// directory, without path tricks.
func (in Intake) checkChannel(channel string) error {
	if strings.Contains(channel, "..") || strings.Contains(channel, "/") || channel == "." {
		return fmt.Errorf("%w: invalid channel name %q: path traversal detected", ErrIntake, channel)
	}
	info, err := os.Stat(filepath.Join(in.SkillsDir, channel))
	if err != nil || !info.IsDir() {
		return fmt.Errorf("%w: invalid channel name: directory not found (%s) in %s", ErrIntake, channel, in.SkillsDir)
	}
	return nil
}

// ReplyRoute is the ` ---- reply via: ...` suffix that tells the agent how
// to answer a message: zylos's c4-send.js of the comm-bridge skill, with the
// channel and, when there is one, the endpoint.
func ReplyRoute(skillsDir, channel, endpoint string) string {
	route := fmt.Sprintf(` ---- reply via: node %s "%s"`, filepath.Join(skillsDir, "comm-bridge", "scripts", "c4-send.js"), channel)
	if endpoint != "" {
		route += fmt.Sprintf(` "%s"`, endpoint)
	}
	return route
}
