package recall

import (
	"github.com/zylos/zylos-memory/tiers/records"
)

// maxKeyFieldRunes bounds each key field of an excerpt.
const maxKeyFieldRunes = 200

// categoryKeyFields are the content fields that tell a reader what a record
// of the category says, enough to choose between update and delete without
// opening the file.
var categoryKeyFields = map[string][]string{
	"session_summary": {"goal", "outcome", "next_actions"},
	"decision":        {"context", "decision", "rationale"},
	"runbook":         {"trigger", "steps", "verification"},
	"constraint":      {"rule", "impact", "severity"},
	"tech_debt":       {"description", "priority", "status"},
	"preference":      {"topic", "value", "reason"},
	"project":         {"status", "notes", "updated"},
}

// Excerpt summarises a candidate record.
type Excerpt struct {
	Title             string            `json:"title"`
	RecordStatus      string            `json:"record_status"`
	Tags              []string          `json:"tags"`
	LastChangeSummary string            `json:"last_change_summary"`
	KeyFields         map[string]string `json:"key_fields"`
}

func buildExcerpt(file, category string) (*Excerpt, error) {
	r, err := records.ReadRecord(file)
	if err != nil {
		return nil, err
	}
	ex := &Excerpt{
		Title:             r.Title,
		RecordStatus:      r.Status(),
		Tags:              r.Tags,
		LastChangeSummary: "Initial creation",
		KeyFields:         map[string]string{},
	}
	if ex.Tags == nil {
		ex.Tags = []string{}
	}
	if n := len(r.Changes); n > 0 && r.Changes[n-1].Summary != "" {
		ex.LastChangeSummary = r.Changes[n-1].Summary
	}
	for _, k := range categoryKeyFields[category] {
		if v, ok := r.Content[k]; ok && v != nil {
			ex.KeyFields[k] = records.Truncate(records.FieldText(v), maxKeyFieldRunes)
		}
	}
	return ex, nil
}
