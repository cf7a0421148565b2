package records

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/regfile"
)

// DraftOptions are the flags of `records draft` (the claude-memory plugin's memory_draft.py).
type DraftOptions struct {
	Root          string
	Action        string // create or update
	Category      string
	InputFile     string // partial input: title, tags, confidence, related_files, change_summary, content
	CandidateFile string // update: the record being updated
	// RootArg is the --root as the caller wrote it, "" when not given.
	// draft_path is answered under it, as the plugin does, so the caller
	// can open it from its own directory.
	RootArg string
	Cwd     string // the caller's working directory, for relative paths
	Now     time.Time
	Warn    func(string)
}

// draftInputKeys are the fields a partial input may carry.
var draftInputKeys = map[string]bool{
	"title": true, "tags": true, "confidence": true, "related_files": true, "change_summary": true, "content": true,
}

// Draft assembles a complete, schema-valid record from a partial input
// (and, for update, the candidate record) and writes it to
// <root>/.staging/draft-<category>-<timestamp>.json for `records write`.
func Draft(o DraftOptions) (Answer, error) {
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	if o.Action != "create" && o.Action != "update" {
		return nil, newError(ErrInput, "field", "--action", "got", quote(o.Action), "fix", "Use create or update")
	}
	if !ValidCategory(o.Category) {
		return nil, newError(ErrInput, "field", "--category", "got", quote(o.Category), "fix", "Use a known category")
	}
	if o.Action == "update" && o.CandidateFile == "" {
		return nil, newError(ErrInput, "field", "--candidate-file", "error", "required for update",
			"fix", "Pass the candidate.path from records candidate")
	}
	in, err := ReadInput(o.InputFile, o.Root)
	if err != nil {
		return nil, err
	}
	assembled, err := Assemble(o, in.doc)
	if err != nil {
		return nil, err
	}
	data, err := doc(assembled).bytes()
	if err != nil {
		return nil, fmt.Errorf("encode draft: %w", err)
	}
	if err := Validate(o.Category, data); err != nil {
		return nil, err
	}
	path, err := writeDraft(o, data)
	if err != nil {
		return nil, err
	}
	return Answer{{"status", "ok"}, {"action", o.Action}, {"draft_path", o.callerPath(path)}}, nil
}

// Assemble builds the complete record a draft holds from a partial input
// (title, tags, confidence, related_files, change_summary, content) and,
// for update, the stored record named by o.CandidateFile, without writing
// a draft file: callers inside the binary pass it to Write as Doc, which
// checks it against the schema and the stored record under the lock.
func Assemble(o DraftOptions, in map[string]any) (map[string]any, error) {
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	if o.Action == "create" {
		if err := requireDraftFields(in, "title", "tags", "content"); err != nil {
			return nil, err
		}
	}
	for k := range in {
		if !draftInputKeys[k] {
			o.Warn("[WARN] draft input field " + k + " ignored (set automatically)")
			delete(in, k)
		}
	}
	var d doc
	var err error
	if o.Action == "create" {
		d = draftCreate(in, o)
	} else if d, err = draftUpdate(in, o); err != nil {
		return nil, err
	}
	autoFix(d, o.Action == "create", o.Now, func(w Warning) { o.Warn(w.String()) })
	return d, nil
}

// requireDraftFields refuses a create input without the fields a record
// cannot be assembled without.
func requireDraftFields(in doc, keys ...string) error {
	var missing []string
	for _, k := range keys {
		if _, ok := in[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return newError(ErrInput, "error", "Missing required fields in input: "+strings.Join(missing, ", "),
		"fix", "Give title, tags and content (and a change_summary)")
}

// callerPath names a draft so the caller can open it from its working
// directory: under --root as written when one was given, else relative
// to the working directory when the draft lies under it, else absolute.
func (o DraftOptions) callerPath(abs string) string {
	if o.RootArg != "" {
		if rel, err := filepath.Rel(o.Root, abs); err == nil {
			return filepath.Join(o.RootArg, rel)
		}
	}
	if o.Cwd != "" && within(o.Cwd, abs) {
		if rel, err := filepath.Rel(o.Cwd, abs); err == nil {
			return rel
		}
	}
	return abs
}

func changeSummary(in doc, def string) string {
	if s := in.str("change_summary"); s != "" {
		return s
	}
	return def
}

func draftCreate(in doc, o DraftOptions) doc {
	now := stamp(o.Now)
	d := doc{
		"schema_version": SchemaVersion, "category": o.Category, "id": TitleID(in.str("title")),
		"title": in["title"], "tags": in["tags"], "content": in["content"],
		"created_at": now, "updated_at": now, "record_status": StatusActive, "times_updated": 0,
	}
	for _, k := range []string{"confidence", "related_files"} {
		if v, ok := in[k]; ok {
			d[k] = v
		}
	}
	d.appendChange(Change{Date: now, Summary: changeSummary(in, "Created")})
	return d
}

func draftUpdate(in doc, o DraftOptions) (doc, error) {
	missing := newError(ErrInput, "target", o.CandidateFile, "error", "Candidate file does not exist",
		"fix", "Run records candidate again")
	abs, err := Locate(o.Root, o.Cwd, o.CandidateFile)
	if err != nil {
		if _, serr := os.Stat(o.CandidateFile); errors.Is(serr, fs.ErrNotExist) {
			return nil, missing
		}
		return nil, newError(ErrPath, "target", o.CandidateFile, "error", err.Error(), "fix", "Use the candidate.path as given")
	}
	data, err := regfile.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, missing
	}
	if err != nil {
		return nil, fmt.Errorf("read candidate: %w", err)
	}
	d, err := decodeDoc(data)
	if err != nil {
		return nil, newError(ErrRead, "target", o.CandidateFile, "error", err.Error(), "fix", "Repair or retire the candidate")
	}
	if t := in.str("title"); t != "" {
		d["title"] = t
	}
	if v, ok := in["confidence"]; ok {
		d["confidence"] = v
	}
	d["tags"] = anyList(union(d.strings("tags"), doc{"tags": toList(in["tags"])}.strings("tags")))
	if rf := union(d.strings("related_files"), in.strings("related_files")); len(rf) > 0 {
		d["related_files"] = anyList(rf)
	}
	content := d.content()
	if content == nil {
		content = map[string]any{}
	}
	if nc, ok := in["content"].(map[string]any); ok {
		for k, v := range nc {
			content[k] = v
		}
	}
	d["content"] = content
	d["updated_at"] = stamp(o.Now)
	// The draft shows the count the write will store (write recounts
	// from the stored record, so the draft's value is only a preview).
	n, _ := d.number("times_updated")
	d["times_updated"] = int(n) + 1
	// Uncapped: the update that writes the draft counts it as new before
	// the cap drops the oldest entry.
	d.logChange(Change{Date: stamp(o.Now), Summary: changeSummary(in, "Updated")})
	return d, nil
}

func toList(v any) []any {
	if s, ok := v.(string); ok {
		return []any{s}
	}
	l, _ := v.([]any)
	return l
}

func union(a, b []string) []string {
	out := append(append([]string(nil), a...), minus(b, a)...)
	sort.Strings(out)
	return sortedSet(out)
}

// writeDraft creates the draft file without ever replacing another one.
func writeDraft(o DraftOptions, data []byte) (string, error) {
	dir := filepath.Join(o.Root, StagingDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create staging dir: %w", err)
	}
	atomicfile.Sweep(dir)
	base := fmt.Sprintf("draft-%s-%d", o.Category, o.Now.Unix())
	for i := 1; ; i++ {
		name := base
		if i > 1 {
			name += "-" + strconv.Itoa(i)
		}
		path := filepath.Join(dir, name+".json")
		err := atomicfile.CreateExclusive(path, data, 0o644)
		if err == nil {
			return path, nil
		}
		if !errors.Is(err, fs.ErrExist) || i > 1000 {
			return "", fmt.Errorf("write draft: %w", err)
		}
	}
}
