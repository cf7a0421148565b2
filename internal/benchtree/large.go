package benchtree

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers"
)

// Sizes of the large home: ten years of daily logs (about 40 MB), ten
// thousand records and a million C4 conversations.
const (
	LargeLogs    = 3650
	LargeLogSize = 11 << 10
	LargeRecords = 10000
	LargeC4Rows  = 1000000
)

var (
	largeOnce sync.Once
	largeDir  string
	largeErr  error
)

// LargeHome is the large home, built once per test binary in a temporary
// directory that Cleanup removes: building it takes about a minute, so the
// benchmarks of one run share it. Benchmarks must not change it.
func LargeHome(tb testing.TB) tiers.Layout {
	tb.Helper()
	largeOnce.Do(func() {
		largeDir, largeErr = os.MkdirTemp("", "zylos-memory-large-")
		if largeErr != nil {
			return
		}
		l := tiers.Layout{ZylosDir: filepath.Join(largeDir, "zylos")}
		if largeErr = Logs(l, LargeLogs, LargeLogSize); largeErr != nil {
			return
		}
		if largeErr = C4(l.C4DB(), LargeC4Rows); largeErr != nil {
			return
		}
		Records(tb, l.RecordsDir(), LargeRecords, Mixed)
		Entries(tb, l, 1000)
	})
	if largeErr != nil {
		tb.Fatal(largeErr)
	}
	return tiers.Layout{ZylosDir: filepath.Join(largeDir, "zylos")}
}

// Cleanup removes what LargeHome built; call it from TestMain.
func Cleanup() {
	if largeDir != "" {
		os.RemoveAll(largeDir)
	}
}

// vocabulary is a made-up language of 8,000 words drawn with a Zipf
// law, as words of real text are: a few very common, most rare, so the
// index holds long and short posting lists as a real one does. The
// English words of the other trees sit among the moderately common ones
// (ranks 300 to 3,400), as topic words do in real notes.
var vocabulary = sync.OnceValue(func() []string {
	syll := strings.Fields("ka lo mi ne su ta ri po ve da fu ge hi jo ku la me no pe qu ra se ti vo wa xe yo za")
	seen := map[string]bool{}
	var out []string
	rng := rand.New(rand.NewPCG(1, 2))
	for len(out) < 8000 {
		if n := len(out) - 300; n >= 0 && n%100 == 0 && n/100 < len(words) {
			out = append(out, words[n/100])
			continue
		}
		n := 2 + rng.IntN(3)
		var b strings.Builder
		for range n {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
})

// sentence is about n bytes of text from the vocabulary.
func sentence(rng *rand.Rand, zipf *rand.Zipf, n int) string {
	voc := vocabulary()
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(voc[zipf.Uint64()])
	}
	return b.String()
}

// Logs writes n dated logs of about size bytes each, one a day back from
// 2026-03-14, as timestamped lines.
func Logs(l tiers.Layout, n, size int) error {
	if err := os.MkdirAll(l.SessionsDir(), 0o755); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(3, 4))
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocabulary())-1))
	last := time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC)
	for i := range n {
		day := last.AddDate(0, 0, -i).Format(time.DateOnly)
		var b strings.Builder
		fmt.Fprintf(&b, "# Session Log: %s\n\n", day)
		for m := 0; b.Len() < size; m += 7 {
			fmt.Fprintf(&b, "**%02d:%02d** - %s\n", 8+m/60%14, m%60, sentence(rng, zipf, 40+rng.IntN(120)))
		}
		if err := os.WriteFile(filepath.Join(l.SessionsDir(), day+".md"), []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(l.CurrentSession(), []byte("# Session Log: 2026-03-15\n\n**09:00** - started the day\n"), 0o644)
}

// C4 creates the C4 database at path with n conversations from the
// vocabulary, a minute apart, ending on 2026-03-15.
func C4(path string, n int) error {
	if _, err := c4sync.Create(path); err != nil {
		return err
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmt, err := tx.Prepare(`INSERT INTO conversations (timestamp, direction, channel, content, status) VALUES (?, ?, 'telegram', ?, 'delivered')`)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(5, 6))
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocabulary())-1))
	end := time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC)
	for i := range n {
		ts := end.Add(-time.Duration(n-i) * time.Minute).Format(time.DateTime)
		if _, err := stmt.Exec(ts, []string{"in", "out"}[i%2], sentence(rng, zipf, 30+rng.IntN(150))); err != nil {
			return err
		}
	}
	return tx.Commit()
}
