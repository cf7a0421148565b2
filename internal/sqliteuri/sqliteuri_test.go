package sqliteuri

import (
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

// create makes a one-table database at path in journal mode and closes it.
func create(t *testing.T, path, mode string) {
	t.Helper()
	db, err := sql.Open("sqlite3", URI(path, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"PRAGMA journal_mode = " + mode, "CREATE TABLE t (x)", "INSERT INTO t VALUES (1)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReadOnlyCreatesNothing(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(t *testing.T, path string)
		immutable bool
	}{
		{"wal at rest", func(t *testing.T, p string) { create(t, p, "wal") }, true},
		{"wal in use", func(t *testing.T, p string) {
			create(t, p, "wal")
			writer, err := sql.Open("sqlite3", URI(p, nil))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { writer.Close() })
			if _, err := writer.Exec("INSERT INTO t VALUES (2)"); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"rollback journal", func(t *testing.T, p string) { create(t, p, "delete") }, false},
		{"not a database", func(t *testing.T, p string) { os.WriteFile(p, []byte("SQLite format 2, or so\n"), 0o600) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "odd ?#name.db")
			tt.setup(t, path)
			q := ReadOnly(path)
			if got := q.Get("immutable") == "1"; got != tt.immutable || q.Get("mode") != "ro" {
				t.Fatalf("ReadOnly = %v, want mode=ro and immutable %v", q, tt.immutable)
			}
			before := names(t, dir)
			db, err := sql.Open("sqlite3", URI(path, q))
			if err != nil {
				t.Fatal(err)
			}
			var n int
			err = db.QueryRow("SELECT count(*) FROM t").Scan(&n)
			db.Close()
			if tt.name != "not a database" && (err != nil || n == 0) {
				t.Errorf("read %d rows: %v", n, err)
			}
			if after := names(t, dir); !slices.Equal(after, before) {
				t.Errorf("files %v after reading, %v before", after, before)
			}
		})
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}
