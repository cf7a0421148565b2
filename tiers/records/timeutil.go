package records

import (
	"fmt"
	"time"
)

// stamp is the timestamp form records are written with: UTC, seconds.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// parseStamp reads the timestamps found in records: RFC 3339 (the Go and
// JavaScript forms), Python's isoformat with an offset, and naive
// date-times, which the plugin wrote as UTC.
func parseStamp(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("not an ISO 8601 time: %q", s)
}
