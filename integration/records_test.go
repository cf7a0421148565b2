package integration

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// recHome is a fresh zylos home; its records root and staging dir.
type recHome struct {
	t                *testing.T
	zylos, root, stg string
}

func newRecHome(t *testing.T) *recHome {
	t.Helper()
	zd := filepath.Join(t.TempDir(), "zylos")
	root := filepath.Join(zd, "memory", "records")
	if err := os.MkdirAll(filepath.Join(root, ".staging"), 0o755); err != nil {
		t.Fatal(err)
	}
	return &recHome{t: t, zylos: zd, root: root, stg: filepath.Join(root, ".staging")}
}

func (h *recHome) run(env []string, args ...string) testutil.Result {
	h.t.Helper()
	return testutil.Run{ZylosDir: h.zylos, Dir: h.zylos, Env: env}.Exec(h.t, args...)
}

// stage writes an input file into .staging and returns its path.
func (h *recHome) stage(name, body string) string {
	h.t.Helper()
	p := filepath.Join(h.stg, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return p
}

// edit stages the record at rel with change applied, as an update input.
func (h *recHome) edit(rel string, change func(map[string]any)) string {
	h.t.Helper()
	var d map[string]any
	data, err := os.ReadFile(filepath.Join(h.zylos, rel))
	if err != nil {
		h.t.Fatal(err)
	}
	if err := json.Unmarshal(data, &d); err != nil {
		h.t.Fatal(err)
	}
	change(d)
	out, _ := json.Marshal(d)
	return h.stage("input-edit.json", string(out))
}

func (h *recHome) hash(rel string) string {
	data, _ := os.ReadFile(filepath.Join(h.zylos, rel))
	return md5hex(data)
}

func md5hex(data []byte) string {
	sum := md5.Sum(data)
	return hex.EncodeToString(sum[:])
}

// scrub replaces the temp home so golden files do not depend on it.
func (h *recHome) scrub(s string) string { return strings.ReplaceAll(s, h.zylos, "$ZYLOS_DIR") }

func (h *recHome) golden(name string, res testutil.Result) {
	h.t.Helper()
	text := fmt.Sprintf("exit: %d\n--- stdout\n%s--- stderr\n%s", res.Code, res.Stdout, res.Stderr)
	testutil.Golden(h.t, filepath.Join("testdata", "records", name+".golden"), []byte(h.scrub(text)))
}

func withChange(d map[string]any) {
	changes, _ := d["changes"].([]any)
	d["changes"] = append(changes, map[string]any{"date": "2026-03-15T10:30:00Z", "summary": "edited"})
}

const (
	recJWT      = "memory/records/decisions/use-jwt-for-auth.json"
	recDecision = `{"title": "  Use JWT for auth -> now #tags:x ", "tags": "Auth", "confidence": 1.7,
 "content": {"status": "accepted", "context": "Sessions did not scale", "decision": "Stateless JWT",
             "rationale": ["No session store"]}}`
)

// TestRecordsWriteGolden runs one home through every write answer and
// error block, each step compared with its golden file.
func TestRecordsWriteGolden(t *testing.T) {
	h := newRecHome(t)
	later := []string{"ZYLOS_MEMORY_NOW=2026-03-17T10:30:00Z"}
	steps := []struct {
		name string
		env  []string
		args func() []string
	}{
		{"create", nil, func() []string {
			return []string{"records", "write", "--action", "create", "--category", "decision", "--target", recJWT, "--input", h.stage("in.json", recDecision)}
		}},
		{"create-exists", nil, func() []string {
			return []string{"records", "write", "--action", "create", "--category", "decision", "--target", recJWT, "--input", h.stage("in.json", recDecision)}
		}},
		{"create-invalid-enum", nil, func() []string {
			return []string{"records", "write", "--action", "create", "--category", "decision", "--target", "memory/records/decisions/bad.json",
				"--input", h.stage("in.json", `{"title":"t","tags":["a"],"content":{"status":"active","context":"c","decision":"d","rationale":["r"]}}`)}
		}},
		{"create-missing-field", nil, func() []string {
			return []string{"records", "write", "--action", "create", "--category", "runbook", "--target", "memory/records/runbooks/r.json",
				"--input", h.stage("in.json", `{"title":"t","tags":["a"],"content":{"trigger":"x","verification":"v"}}`)}
		}},
		{"create-unknown-field", nil, func() []string {
			return []string{"records", "write", "--action", "create", "--category", "project", "--target", "memory/records/projects/p.json",
				"--input", h.stage("in.json", `{"title":"p","tags":["a"],"owner":"me","content":{"status":"active"}}`)}
		}},
		{"create-no-category", nil, func() []string {
			return []string{"records", "write", "--action", "create", "--target", "memory/records/decisions/x.json", "--input", h.stage("in.json", recDecision)}
		}},
		{"create-foreign-input", nil, func() []string {
			return []string{"records", "write", "--action", "create", "--category", "decision", "--target", "memory/records/decisions/x.json", "--input", "/etc/hostname"}
		}},
		{"create-bad-json", nil, func() []string {
			return []string{"records", "write", "--action", "create", "--category", "decision", "--target", "memory/records/decisions/x.json", "--input", h.stage("in.json", `{"title":`)}
		}},
		{"path-traversal", nil, func() []string {
			return []string{"records", "write", "--action", "retire", "--target", "memory/records/../core.md"}
		}},
		{"path-wrong-folder", nil, func() []string {
			return []string{"records", "write", "--action", "create", "--category", "runbook", "--target", recJWT, "--input", h.stage("in.json", recDecision)}
		}},
		{"update-occ-conflict", nil, func() []string {
			return []string{"records", "write", "--action", "update", "--target", recJWT, "--hash", "00000000000000000000000000000000",
				"--input", h.edit(recJWT, withChange)}
		}},
		{"update-merge-tags", nil, func() []string {
			return []string{"records", "write", "--action", "update", "--target", recJWT, "--hash", h.hash(recJWT),
				"--input", h.edit(recJWT, func(d map[string]any) { d["tags"] = []any{"other"}; withChange(d) })}
		}},
		{"update-merge-immutable", nil, func() []string {
			return []string{"records", "write", "--action", "update", "--target", recJWT,
				"--input", h.edit(recJWT, func(d map[string]any) { d["created_at"] = "2001-01-01T00:00:00Z"; withChange(d) })}
		}},
		{"update-no-change-entry", nil, func() []string {
			return []string{"records", "write", "--action", "update", "--target", recJWT, "--hash", h.hash(recJWT),
				"--input", h.edit(recJWT, func(d map[string]any) { d["tags"] = []any{"auth", "tokens"} })}
		}},
		{"update", nil, func() []string {
			return []string{"records", "write", "--action", "update", "--target", recJWT, "--hash", h.hash(recJWT),
				"--input", h.edit(recJWT, func(d map[string]any) {
					d["content"].(map[string]any)["decision"] = "Stateless JWT, 15 minute expiry"
					d["tags"] = []any{"auth", "expiry"}
				})}
		}},
		{"update-rename", nil, func() []string {
			return []string{"records", "write", "--action", "update", "--target", recJWT, "--hash", h.hash(recJWT),
				"--input", h.edit(recJWT, func(d map[string]any) { d["title"] = "Session tokens replace bearer credentials"; withChange(d) })}
		}},
		{"update-missing", nil, func() []string {
			return []string{"records", "write", "--action", "update", "--target", recJWT, "--input", h.stage("in.json", recDecision)}
		}},
		{"retire", nil, func() []string {
			return []string{"records", "write", "--action", "retire", "--target", "memory/records/decisions/session-tokens-replace-bearer-credentials.json", "--reason", "Reversed"}
		}},
		{"delete-already-retired", nil, func() []string {
			return []string{"records", "write", "--action", "delete", "--target", "memory/records/decisions/session-tokens-replace-bearer-credentials.json"}
		}},
		{"archive-retired", nil, func() []string {
			return []string{"records", "write", "--action", "archive", "--target", "memory/records/decisions/session-tokens-replace-bearer-credentials.json"}
		}},
		{"create-resurrection", nil, func() []string {
			return []string{"records", "write", "--action", "create", "--category", "decision",
				"--target", "memory/records/decisions/session-tokens-replace-bearer-credentials.json", "--input", h.stage("in.json", recDecision)}
		}},
		{"restore", later, func() []string {
			return []string{"records", "write", "--action", "restore", "--target", "memory/records/decisions/session-tokens-replace-bearer-credentials.json"}
		}},
		{"restore-active", nil, func() []string {
			return []string{"records", "write", "--action", "restore", "--target", "memory/records/decisions/session-tokens-replace-bearer-credentials.json"}
		}},
		{"archive", nil, func() []string {
			return []string{"records", "write", "--action", "archive", "--target", "memory/records/decisions/session-tokens-replace-bearer-credentials.json", "--reason", "Historic"}
		}},
		{"archive-again", nil, func() []string {
			return []string{"records", "write", "--action", "archive", "--target", "memory/records/decisions/session-tokens-replace-bearer-credentials.json"}
		}},
		{"retire-archived", nil, func() []string {
			return []string{"records", "write", "--action", "retire", "--target", "memory/records/decisions/session-tokens-replace-bearer-credentials.json"}
		}},
		{"unarchive", nil, func() []string {
			return []string{"records", "write", "--action", "unarchive", "--target", "memory/records/decisions/session-tokens-replace-bearer-credentials.json"}
		}},
		{"unarchive-active", nil, func() []string {
			return []string{"records", "write", "--action", "unarchive", "--target", "memory/records/decisions/session-tokens-replace-bearer-credentials.json"}
		}},
		{"bad-action", nil, func() []string {
			return []string{"records", "write", "--action", "destroy", "--target", recJWT}
		}},
	}
	for _, st := range steps {
		h.golden("write-"+st.name, h.run(st.env, st.args()...))
	}
	index, _ := os.ReadFile(filepath.Join(h.root, "index.md"))
	testutil.Golden(t, "testdata/records/write-final-index.golden", index)
	record, _ := os.ReadFile(filepath.Join(h.root, "decisions", "session-tokens-replace-bearer-credentials.json"))
	testutil.Golden(t, "testdata/records/write-final-record.golden", record)
}

// recSession stages a session summary input for records write.
func recSession(h *recHome, day int, next string) string {
	return h.stage("session.json", fmt.Sprintf(`{"title":"Session %d","tags":["session"],"created_at":"2026-03-%02dT09:00:00Z",
 "content":{"goal":"work","outcome":"success","completed":["things"],"next_actions":[%q]}}`, day, day, next))
}

func TestRecordsIndexDraftEnforceGolden(t *testing.T) {
	h := newRecHome(t)
	for day := 1; day <= 6; day++ {
		res := h.run(nil, "records", "write", "--action", "create", "--category", "session_summary",
			"--target", fmt.Sprintf("memory/records/sessions/session-%d.json", day), "--input", recSession(h, day, fmt.Sprintf("item %d", day)))
		if day == 6 {
			h.golden("session-create-window", res)
		} else if res.Code != 0 {
			t.Fatalf("create session %d: %s", day, res.Stdout)
		}
	}
	in := h.stage("input-preference.json", `{"title":"Prefer table-driven tests","tags":["testing","Go"],"confidence":0.8,
 "change_summary":"Seen in review","content":{"topic":"tests","value":"table-driven","reason":"readable","strength":"default"}}`)
	h.golden("draft-create", h.run(nil, "records", "draft", "--action", "create", "--category", "preference", "--input-file", in))
	draft := filepath.Join(h.stg, "draft-preference-1773570600.json")
	h.golden("draft-write", h.run(nil, "records", "write", "--action", "create", "--category", "preference",
		"--target", "memory/records/preferences/prefer-table-driven-tests.json", "--input", draft))
	in = h.stage("input-preference.json", `{"tags":["style"],"change_summary":"Confirmed","content":{"strength":"strong"}}`)
	h.golden("draft-update", h.run(nil, "records", "draft", "--action", "update", "--category", "preference", "--input-file", in,
		"--candidate-file", "memory/records/preferences/prefer-table-driven-tests.json"))
	h.golden("draft-invalid", h.run(nil, "records", "draft", "--action", "create", "--category", "preference",
		"--input-file", h.stage("input-bad.json", `{"title":"x","tags":["a"],"content":{"topic":"t"}}`)))

	h.golden("enforce", h.run(nil, "records", "enforce", "--category", "session_summary", "--max-retained", "3"))
	h.golden("enforce-bad-category", h.run(nil, "records", "enforce", "--category", "decision"))
	h.golden("index-rebuild", h.run(nil, "records", "index", "--rebuild"))
	h.golden("index-validate", h.run(nil, "records", "index", "--validate"))
	h.golden("index-query", h.run(nil, "records", "index", "--query", "SESSION 5"))
	h.golden("index-query-none", h.run(nil, "records", "index", "--query", "nothing-like-this"))
	os.Remove(filepath.Join(h.root, "sessions", "session-6.json"))
	h.stage("ignored.txt", "")
	h.golden("index-validate-drift", h.run(nil, "records", "index", "--validate"))
	h.golden("index-health", h.run(nil, "records", "index", "--health"))
	h.golden("index-gc", h.run([]string{"ZYLOS_MEMORY_NOW=2026-05-01T00:00:00Z"}, "records", "index", "--gc"))
	h.golden("index-no-op", h.run(nil, "records", "index"))
	h.golden("index-missing-root", h.run(nil, "records", "index", "--root", filepath.Join(h.zylos, "nope"), "--rebuild"))
	os.Remove(filepath.Join(h.root, "index.md"))
	h.golden("index-query-no-index", h.run(nil, "records", "index", "--query", "x"))
}

// TestRecordsPluginRoot: a target under .claude/memory picks that root,
// as the plugin does, with index paths relative to the project.
func TestRecordsPluginRoot(t *testing.T) {
	h := newRecHome(t)
	project := filepath.Join(h.zylos, "project")
	staging := filepath.Join(project, ".claude", "memory", ".staging")
	os.MkdirAll(staging, 0o755)
	os.WriteFile(filepath.Join(staging, "in.json"), []byte(recDecision), 0o644)
	res := testutil.Run{ZylosDir: h.zylos, Dir: project}.Exec(t, "records", "write", "--action", "create", "--category", "decision",
		"--target", ".claude/memory/decisions/use-jwt.json", "--input", ".claude/memory/.staging/in.json")
	if res.Code != 0 {
		t.Fatalf("%+v", res)
	}
	index, _ := os.ReadFile(filepath.Join(project, ".claude", "memory", "index.md"))
	if !strings.Contains(string(index), "-> .claude/memory/decisions/use-jwt.json #tags:auth") {
		t.Fatalf("index:\n%s", index)
	}
}
