package c4sync

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/zylos/zylos-memory/internal/lazy"
	"github.com/zylos/zylos-memory/tiers"
)

// SessionInit is the text of `c4 session-init` in the framing of the home's
// layout: the v2-era lines, or v0.7.1's `=== LABEL ===` sections. The
// framing is the layout's fact (tiers.Kind.Sections) but its rendering
// lives here, beside the conversations it frames: tiers cannot hold it
// without importing sync. skillsDir is where zylos's comm-bridge skill
// lives, for the reply routes v0.7.1 shows under inbound messages.
func (db *DB) SessionInit(kind *tiers.Kind, threshold int, skillsDir string) (SessionInit, error) {
	if !kind.Sections {
		return db.sessionInitLines(kind, threshold)
	}
	cp, r, err := db.sessionRange()
	if err != nil {
		return SessionInit{}, err
	}
	var sections []string
	switch {
	case cp == nil:
	case cp.Summary != nil && *cp.Summary != "":
		sections = append(sections, tiers.FormatSection("LAST CHECKPOINT SUMMARY", *cp.Summary))
	default:
		sections = append(sections, tiers.FormatSection("LAST CHECKPOINT",
			fmt.Sprintf("(no summary — checkpoint #%d, %s)", cp.ID, cp.Timestamp)))
	}
	if r.Count == 0 {
		sections = append(sections, tiers.FormatSection(recentLabel, "No new conversations since last checkpoint."))
		return SessionInit{Head: strings.Join(sections, "\n\n") + "\n"}, nil
	}
	over, limit := shown(r, threshold)
	recs, err := db.agentRecords(cp.EndOrZero(), limit, skillsDir)
	if err != nil {
		return SessionInit{}, err
	}
	// The conversations are one section's body (tiers.FormatSection): an
	// empty line between two, the last one trimmed.
	open, closing := tiers.SectionFrame(recentLabel)
	s := SessionInit{Head: strings.Join(append(sections, open), "\n\n")}
	for i, rec := range recs {
		if i == len(recs)-1 {
			rec = tiers.SectionBody(rec)
		} else {
			rec += "\n"
		}
		s.Records = append(s.Records, rec)
	}
	s.Tail = closing
	if over {
		s.Tail += "\n\n" + tiers.FormatSection("ACTION REQUIRED", syncAsk(kind, r))
		s.Trigger = true
	}
	s.Tail += "\n"
	return s, nil
}

const recentLabel = "RECENT CONVERSATIONS"

// legacyReplyRoute finds a reply route a message was stored with (the
// v2-era intake), which v0.7.1 does not repeat.
var legacyReplyRoute = lazy.Regexp(`---- reply via: node\b.*\bc4-send\.js\b`)

// agentRecords renders the newest limit conversations after the checkpoint
// as v0.7.1 shows them to the agent: the records of `c4 fetch`, an inbound
// message with an endpoint followed by its reply route. Messages stay whole
// (v0.7.1's session-start shard does not spill them to attachments; the
// hook cuts oldest records first instead).
func (db *DB) agentRecords(after, limit int64, skillsDir string) ([]string, error) {
	rows, err := db.sql.Query(`SELECT id, COALESCE(CAST(timestamp AS TEXT), ''), direction, COALESCE(channel, ''),
 COALESCE(endpoint_id, ''), COALESCE(CAST(content AS TEXT), '') FROM conversations WHERE id > ? ORDER BY id DESC LIMIT ?`, after, limit)
	if err != nil {
		return nil, db.wrap("fetch conversations", err)
	}
	defer rows.Close()
	var recs []string
	for rows.Next() {
		var id int64
		var ts, dir, channel, endpoint string
		var content sql.RawBytes
		if err := rows.Scan(&id, &ts, &dir, &channel, &endpoint, &content); err != nil {
			return nil, db.wrap("fetch conversations", err)
		}
		text := string(content)
		label, target := "OUT", channel
		if dir == "in" {
			label = "IN"
		}
		if endpoint != "" {
			target += ":" + endpoint
			if dir == "in" && !legacyReplyRoute().MatchString(text) {
				text += ReplyRoute(skillsDir, channel, endpoint)
			}
		}
		recs = append(recs, "["+ts+"] "+label+" ("+target+"):\n"+text+"\n")
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap("fetch conversations", err)
	}
	slices.Reverse(recs)
	return recs, nil
}
