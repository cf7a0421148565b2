package tiers

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

const (
	// sessionArchiveAge is how old a dated session log must be before the
	// report names it an archive candidate.
	sessionArchiveAgeDays = 30
	// referenceSizeLimit is the size above which a reference file is
	// reported (10 KB).
	referenceSizeLimit = 10240
)

// Report is consolidate.js's report.
type Report struct {
	Timestamp         time.Time
	Core              *CoreInfo // nil when core.md is missing: printed as {}
	ArchiveCandidates []string  // session logs older than 30 days, by name
	Reference         []ReferenceFile
	Recommendations   []string
}

// CoreInfo is the report's view of core.md.
type CoreInfo struct {
	SizeBytes    int64
	LastModified time.Time
}

// ReferenceFile is one file directly under reference/.
type ReferenceFile struct {
	File         string // "reference/NAME"
	SizeBytes    int64
	LastModified time.Time
}

// Consolidation builds the report consolidate.js prints, with its quirks:
// a session file's date is UTC midnight while the 30-day limit is local
// now minus 30 calendar days; impossible dates are never candidates; every
// entry of reference/ is listed, dot files included. Like the Node script
// it creates archive/ when missing. now must be in the chosen location.
func Consolidation(l Layout, now time.Time) (*Report, error) {
	r := &Report{Timestamp: nodeNow(now)}
	if err := r.checkCore(l); err != nil {
		return nil, err
	}
	if err := r.findOldSessions(l, now); err != nil {
		return nil, err
	}
	if err := r.checkReference(l); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(l.ArchiveDir(), 0o755); err != nil {
		return nil, fmt.Errorf("create archive dir: %w", err)
	}
	return r, nil
}

func (r *Report) checkCore(l Layout) error {
	info, err := os.Stat(l.CoreFile())
	if isMissing(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("stat core memory: %w", err)
	}
	r.Core = &CoreInfo{SizeBytes: info.Size(), LastModified: nodeStatTime(info.ModTime())}
	if info.Size() > CoreSizeCap {
		r.Recommendations = append(r.Recommendations, fmt.Sprintf(
			"core.md is %d bytes (cap: %d). Trim Active Working State or Key References.", info.Size(), CoreSizeCap))
	}
	return nil
}

func (r *Report) findOldSessions(l Layout, now time.Time) error {
	names, err := readDirNames(l.SessionsDir())
	if isMissing(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read sessions: %w", err)
	}
	// thirtyDaysAgo.setDate(getDate() - 30): local calendar days, same wall time.
	limit := time.Date(now.Year(), now.Month(), now.Day()-sessionArchiveAgeDays,
		now.Hour(), now.Minute(), now.Second(), now.Nanosecond(), now.Location())
	limitMs := nodeNow(limit).UnixMilli()
	for _, name := range names {
		date, ok := strings.CutSuffix(name, ".md")
		if !ok || !isDateName(date) {
			continue
		}
		if day, ok := parseJSDate(date); ok && day.UnixMilli() < limitMs {
			r.ArchiveCandidates = append(r.ArchiveCandidates, name)
		}
	}
	if n := len(r.ArchiveCandidates); n > 0 {
		r.Recommendations = append(r.Recommendations, fmt.Sprintf(
			"%d session log(s) older than 30 days. Consider moving to archive/.", n))
	}
	return nil
}

func (r *Report) checkReference(l Layout) error {
	dir := l.ReferenceDir()
	names, err := readDirNames(dir)
	if isMissing(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read reference: %w", err)
	}
	for _, name := range names {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("stat reference file: %w", err)
		}
		file := "reference/" + name
		r.Reference = append(r.Reference, ReferenceFile{File: file, SizeBytes: info.Size(), LastModified: nodeStatTime(info.ModTime())})
		if info.Size() > referenceSizeLimit {
			r.Recommendations = append(r.Recommendations, fmt.Sprintf(
				"%s is %d bytes. Consider archiving old entries.", file, info.Size()))
		}
	}
	return nil
}

// readDirNames is fs.readdirSync: every name, dot files included, sorted
// bytewise as libuv returns them, decoded as Node decodes file names.
func readDirNames(dir string) ([]string, error) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = nodeString([]byte(e.Name()))
	}
	return names, nil
}

// JSON is the report as the ordered value consolidate.js stringifies; a
// caller may append fields before printing it.
func (r *Report) JSON() JSObject {
	core := JSObject{}
	if r.Core != nil {
		core = JSObject{
			{"sizeBytes", r.Core.SizeBytes},
			{"sizeCap", CoreSizeCap},
			{"overCap", r.Core.SizeBytes > CoreSizeCap},
			{"lastModified", isoMillis(r.Core.LastModified)},
		}
	}
	candidates := JSArray{}
	for _, c := range r.ArchiveCandidates {
		candidates = append(candidates, c)
	}
	reference := JSArray{}
	for _, f := range r.Reference {
		reference = append(reference, JSObject{
			{"file", f.File},
			{"sizeBytes", f.SizeBytes},
			{"lastModified", isoMillis(f.LastModified)},
		})
	}
	recommendations := JSArray{}
	for _, s := range r.Recommendations {
		recommendations = append(recommendations, s)
	}
	return JSObject{
		{"timestamp", isoMillis(r.Timestamp)},
		{"core", core},
		{"sessions", JSObject{{"archiveCandidates", candidates}}},
		{"reference", reference},
		{"recommendations", recommendations},
	}
}

// WriteJSON prints the report as console.log(JSON.stringify(report, null, 2)).
func (r *Report) WriteJSON(w io.Writer) error {
	return WriteIndentedJSON(w, r.JSON())
}

// v2Consolidation is Consolidation as JSON, and its recommendations.
func v2Consolidation(_ *Kind, l Layout, now time.Time) (JSObject, int, error) {
	report, err := Consolidation(l, now)
	if err != nil {
		return nil, 0, err
	}
	return report.JSON(), len(report.Recommendations), nil
}

// WriteIndentedJSON prints v as console.log(JSON.stringify(v, null, 2)).
func WriteIndentedJSON(w io.Writer, v any) error {
	out := append(AppendIndentedJSON(nil, v, ""), '\n')
	if _, err := w.Write(out); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
