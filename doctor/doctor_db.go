package doctor

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"

	"github.com/zylos/zylos-memory/internal/sqliteuri"
	"github.com/zylos/zylos-memory/scheduler"
	"github.com/zylos/zylos-memory/tiers"
)

// checkSchedulerDB opens the scheduler's state database read-only, if the
// scheduler has created it, and runs SQLite's quick integrity check.
func checkSchedulerDB(l tiers.Layout) Check {
	path := scheduler.DBPath(l)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return line(Warn, "scheduler db", "not created yet (run: zylos-memory scheduler run)")
	}
	if err := sqliteuri.CheckFiles(path); err != nil {
		return line(Fail, "scheduler db", err.Error())
	}
	if err := quickCheck(path); err != nil {
		return line(Fail, "scheduler db", fmt.Sprintf("%s: %v", path, err))
	}
	return line(OK, "scheduler db", path)
}

// quickCheck reads the DB without leaving files beside it; a failure is
// confirmed with locks before it is reported, because an unlocked read
// can catch a writer checkpointing (see sqliteuri.ReadOnly).
func quickCheck(path string) error {
	err := quickCheckWith(path, sqliteuri.ReadOnly(path))
	if err != nil {
		err = quickCheckWith(path, sqliteuri.ReadOnlyLocked())
	}
	return err
}

func quickCheckWith(path string, q url.Values) error {
	q.Set("_busy_timeout", "1000")
	db, err := sql.Open("sqlite3", sqliteuri.URI(path, q))
	if err != nil {
		return err
	}
	defer db.Close()
	var tables int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table'`).Scan(&tables); err != nil {
		return err
	}
	if tables == 0 {
		return errors.New("no tables")
	}
	var result string
	if err := db.QueryRow(`PRAGMA quick_check`).Scan(&result); err != nil {
		return err
	}
	if result != "ok" {
		return fmt.Errorf("integrity check: %s", result)
	}
	return nil
}
