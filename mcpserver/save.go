package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/zylos/zylos-memory/tiers/records"
)

type saveInput struct {
	Category string         `json:"category" jsonschema:"decision, project, preference or note (also runbook, constraint, tech_debt, session_summary)"`
	Title    string         `json:"title" jsonschema:"the memory's title"`
	Content  map[string]any `json:"content" jsonschema:"the fields of the category schema: decision {decision, context, rationale: [reasons], status: accepted}; project {status: active, notes}; preference {topic, value, reason, strength: default}; note {body}; a validation error names what is missing"`
	Tags     []string       `json:"tags,omitempty" jsonschema:"keywords; default: the category"`
	Target   string         `json:"target,omitempty" jsonschema:"to update: the record's path or id, as memory_read names it"`
	Hash     string         `json:"hash,omitempty" jsonschema:"to update: the hash memory_read answered for the target"`
	Summary  string         `json:"change_summary,omitempty" jsonschema:"what changed and why, for the record's change log"`
}

// save creates or updates one record through records write's own path:
// the schema, the lock, the hash check (OCC), the markdown view rendered
// under the lock, one change-log entry; and one journal commit, as
// records write makes.
func (h call) save(ctx context.Context, in saveInput) (string, error) {
	if !records.ValidCategory(in.Category) {
		return "", fmt.Errorf("category %q: choose from %s", in.Category, strings.Join(records.Categories, ", "))
	}
	if n := size(in); n > maxSave {
		return "", fmt.Errorf("this memory is %d bytes; a record holds at most %d: save a summary, and keep the long text in a file the record names", n, maxSave)
	}
	var warnings []string
	warn := func(s string) { warnings = append(warnings, s) }
	root := h.Layout.RecordsDir()
	partial := map[string]any{"title": in.Title, "content": in.Content}
	if in.Content == nil {
		delete(partial, "content")
	}
	if in.Summary != "" {
		partial["change_summary"] = in.Summary
	}
	d := records.DraftOptions{Root: root, Category: in.Category, Now: h.Now(), Warn: warn}
	w := records.WriteRequest{Now: h.Now(), Warn: records.WarnLines(warn)}
	target := ""
	if in.Target == "" {
		if in.Hash != "" {
			return "", errors.New("hash goes with target: give the target to update, or leave hash out to create")
		}
		if strings.TrimSpace(in.Title) == "" {
			return "", errors.New("give a title")
		}
		tags := in.Tags
		if len(tags) == 0 {
			tags = []string{in.Category}
		}
		partial["tags"] = tags
		d.Action, w.Action = "create", records.ActionCreate
		target = filepath.Join(root, records.Folder(in.Category), records.TitleID(in.Title)+".json")
	} else {
		r, err := h.resolve(in.Target)
		if err != nil {
			return "", err
		}
		if !r.isRecord() {
			return "", fmt.Errorf("target %q is not a record: give the record's path or id, as memory_read names it", in.Target)
		}
		if in.Hash == "" {
			return "", fmt.Errorf("give the hash memory_read answered for %s, so a change made since is not overwritten", r.rel)
		}
		if strings.TrimSpace(in.Title) == "" {
			delete(partial, "title")
		}
		if len(in.Tags) > 0 {
			partial["tags"] = in.Tags
		}
		d.Action, w.Action, w.Hash = "update", records.ActionUpdate, in.Hash
		d.CandidateFile, target = r.abs, r.abs
	}
	doc, err := records.Assemble(d, partial)
	if err != nil {
		return "", recordError(err)
	}
	if w.Target, err = records.ResolveTarget(root, "", target, w.Action, in.Category); err != nil {
		return "", recordError(err)
	}
	w.Input = records.InputOf(doc)
	o := h.Home
	o.Warn = warn
	ans, err := o.Save(ctx, o.Command(saveCommand), w)
	for _, s := range warnings {
		h.logf("%s", s)
	}
	if err != nil {
		return "", recordError(err)
	}
	var b strings.Builder
	b.WriteString(ans.String() + "\n")
	if id, ok := ans.Get("id").(string); ok {
		if e, file, ok := h.entryOfRecord(id); ok {
			fmt.Fprintf(&b, "Entry %s:%d\n%s\n", file, e.Line, strings.TrimRight(e.Text, "\n"))
		}
	}
	return b.String(), nil
}

// saveCommand is the command a save's journal commit names.
const saveCommand = "mcp memory_save"

// maxSave bounds what one save stores, as records write bounds its
// input file: a memory is a few kilobytes.
const maxSave = 1 << 20

// size is the length of the input as JSON.
func size(in saveInput) int {
	data, err := json.Marshal(in)
	if err != nil {
		return 0
	}
	return len(data)
}

// recordError is a records error block as a tool error's text: its kind
// and fields, ending in what to fix.
func recordError(err error) error {
	var rerr *records.Error
	if errors.As(err, &rerr) {
		return errors.New(strings.TrimRight(rerr.Block(), "\n"))
	}
	return err
}
