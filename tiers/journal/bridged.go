package journal

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers/bridge"
	"github.com/zylos/zylos-memory/tiers/records"
)

// Restorers picks how a restored file is written: a reference file
// through the bridge, so that its records follow with a change-log entry
// "restored from REV"; a record through a records write; anything else
// as a plain atomic write. warn takes the bridge's notes.
func (j *Journal) Restorer(rel string, now time.Time, warn func(string)) Restorer {
	h := bridge.Memory{Layout: j.layout, Now: now, Warn: warn}
	switch j.kindOf(rel) {
	case referenceFile:
		return func(abs string, data []byte, why string) error {
			if err := writeFile(abs, data, why); err != nil {
				return err
			}
			h.Reason = why
			_, err := bridge.Ingest(h, false)
			return err
		}
	case recordFile:
		return func(abs string, data []byte, why string) error {
			var doc map[string]any
			if err := json.Unmarshal(data, &doc); err != nil {
				return fmt.Errorf("memory/%s (%s) is not a record: %w", rel, why, err)
			}
			// The change log is append-only: the record's own, and the restore.
			cur, err := regfile.ReadFile(abs)
			if err != nil {
				return fmt.Errorf("memory/%s: %w (restore a deleted record with records write --action create)", rel, err)
			}
			var current map[string]any
			if err := json.Unmarshal(cur, &current); err != nil {
				return fmt.Errorf("memory/%s is not a record now: %w", rel, err)
			}
			doc = records.Restored(doc, current, now.UTC().Format(time.RFC3339), why)
			var view records.View
			if h.HasView() {
				view = h.View() // the record's entry follows it, as with records write
			}
			target, err := records.ResolveTarget(j.layout.RecordsDir(), "", abs, records.ActionUpdate, "")
			if err != nil {
				return err
			}
			_, err = records.Write(records.WriteRequest{Action: records.ActionUpdate, Target: target, Input: records.InputOf(doc),
				Hash: records.Hash(cur), KeepID: true, Now: now, Warn: records.WarnLines(warn), View: view})
			return err
		}
	}
	return nil
}

// fileKind is what a memory file is to the records: a reference file the
// bridge keeps records of, a record, or neither.
type fileKind int

const (
	plainFile fileKind = iota
	referenceFile
	recordFile
)

func (j *Journal) kindOf(rel string) fileKind {
	if bridge.IsReferenceFile(rel) {
		return referenceFile
	}
	parts := strings.Split(rel, "/")
	if len(parts) == 3 && parts[0] == "records" && records.CategoryOfFolder(parts[1]) != "" && strings.HasSuffix(rel, ".json") {
		return recordFile
	}
	return plainFile
}
