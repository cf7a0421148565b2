package hooks

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/team"
)

// refusedToldFile lists the entries kept local for a credential that a
// session start has told of, a key a line: each is told once.
const refusedToldFile = "team-refused-told"

// teamLine is what SessionStart tells of the home's team, in one line:
// the memories that arrived from other homes since it last told, the
// conflicts waiting, and the entries newly kept local for a credential;
// "" for a home in no team, or when there is nothing to tell. It reads
// the membership and the state a sync leaves (the conflicts counted
// there: reading every record would cost a large home 100 ms and more),
// and marks what it tells as told. cmd spells the commands it gives.
func teamLine(l tiers.Layout, cmd string) string {
	if _, err := team.ReadConfig(l); err != nil {
		return "" // in no team; a broken membership is the doctor's to say
	}
	st := team.ReadState(l)
	arrived := team.Unannounced(l, st, true)
	refused := untoldRefused(l, st.Refused)
	var said []string
	if arrived > 0 {
		said = append(said, fmt.Sprintf("%s arrived from other homes since the last session", count(arrived, "memory", "memories")))
	}
	if st.Conflicts > 0 {
		said = append(said, fmt.Sprintf("%s (%s team conflicts)", count(st.Conflicts, "conflict waits", "conflicts wait"), cmd))
	}
	line := ""
	if len(said) > 0 {
		line = strings.Join(said, "; ") + "."
	}
	if refused > 0 {
		held := "it holds"
		if refused > 1 {
			held = "they hold"
		}
		line = strings.TrimSpace(fmt.Sprintf("%s %s kept local: %s a credential (%s team status).", line, count(refused, "entry", "entries"), held, cmd))
	}
	if line == "" {
		return ""
	}
	return "Team: " + line
}

// count is n with the noun of its number.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// untoldRefused is how many of the entries kept local (by key) no
// session start told of yet; it marks them all told. A failure to mark
// only means they may be told once more.
func untoldRefused(l tiers.Layout, refused map[string]string) int {
	path := filepath.Join(l.StateDir(), refusedToldFile)
	var told []string
	if data, err := regfile.ReadFileLimit(path, 1<<20); err == nil {
		told = strings.Split(string(data), "\n")
	}
	keys := make([]string, 0, len(refused))
	untold := 0
	for key := range refused {
		keys = append(keys, key)
		if !slices.Contains(told, key) {
			untold++
		}
	}
	if untold > 0 {
		slices.Sort(keys)
		_ = atomicfile.WriteFile(path, []byte(strings.Join(keys, "\n")), 0o600)
	}
	return untold
}
