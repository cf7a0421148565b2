package fulltext

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Check refuses a query search cannot run, saying what to change: no
// words, a negative limit, an unknown tier, a date not YYYY-MM-DD. The
// search command and the MCP tool share it, so both refuse alike.
func (q Query) Check() error {
	if strings.TrimSpace(q.Text) == "" {
		return fmt.Errorf("give a QUERY")
	}
	if _, err := Terms(q.Text); err != nil {
		return fmt.Errorf("query %q: %w", QueryShown(q.Text), err)
	}
	if q.Limit < 0 {
		return fmt.Errorf("--limit must be 0 or more")
	}
	for _, t := range q.Tiers {
		if !slices.Contains(Tiers, t) {
			return fmt.Errorf("unknown tier %q (choose from %s)", t, strings.Join(Tiers, ", "))
		}
	}
	for _, d := range []string{q.Since, q.Until} {
		if _, err := time.Parse(time.DateOnly, d); d != "" && err != nil {
			return fmt.Errorf("date %q: want YYYY-MM-DD", d)
		}
	}
	return nil
}
