package team

import (
	"testing"

	"github.com/zylos/zylos-memory/tiers/records"
)

// A member's entry is hostile input: decoding never panics, and what it
// accepts is an entry of a shared category, at the path its id names,
// with a bounded history.
func FuzzDecodeEntry(f *testing.F) {
	f.Add("records/decisions/use-jwt.json", []byte(`{"id": "use-jwt", "category": "decision", "title": "Use JWT", "tags": ["auth"],
		"record_status": "active", "content": {"decision": "jwt"}, "origin": "laptop", "rev": 3, "history": ["0123456789abcdef01234567"],
		"conflict": {"home": "server", "title": "Use JWT", "content": {"decision": "paseto"}}}`))
	f.Add("records/notes/x.json", []byte(`{"id": "x", "category": "note", "title": "X", "record_status": "retired", "content": {}}`))
	f.Add("records/decisions/../x.json", []byte(`{"id": "../x", "category": "decision"}`))
	f.Add("records/sessions/s.json", []byte(`{"id": "s", "category": "session_summary", "title": "S", "content": {}}`))
	f.Add("x", []byte(`null`))
	f.Fuzz(func(t *testing.T, path string, data []byte) {
		e, err := decodeEntry(path, data)
		if err != nil {
			return
		}
		if e.path() != path || !records.ValidID(e.ID) || len(e.History) > historyCap || len(data) > maxEntry || e.Title == "" || e.Content == nil {
			t.Fatalf("accepted %q as %+v", path, e)
		}
		_ = lineOf(e, e.Conflict)
		_ = plainText(e)
	})
}
