package scheduler

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// atPrefix marks a one-shot schedule: "@at <RFC 3339 time>".
const atPrefix = "@at "

// parser accepts 5-field cron expressions (an optional leading seconds
// field too) and descriptors such as @daily and "@every 2h".
var parser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour |
	cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// Schedule yields a task's slots. Next returns the first slot strictly
// after t, or the zero time when there is none (a spent one-shot).
type Schedule interface {
	Next(t time.Time) time.Time
}

// ParseSchedule parses a stored schedule spec; loc is the timezone the
// slots are computed in (DST included).
func ParseSchedule(spec string, loc *time.Location) (Schedule, error) {
	spec = strings.TrimSpace(spec)
	if rest, ok := strings.CutPrefix(spec, atPrefix); ok {
		at, err := time.Parse(time.RFC3339, rest)
		if err != nil {
			return nil, fmt.Errorf("one-shot time %q: %w", rest, err)
		}
		return oneShot(at), nil
	}
	if strings.HasPrefix(spec, "TZ=") || strings.HasPrefix(spec, "CRON_TZ=") {
		return nil, fmt.Errorf("schedule %q: give the timezone with --timezone, not in the expression", spec)
	}
	s, err := parser.Parse(spec)
	if err != nil {
		return nil, fmt.Errorf("invalid schedule %q: %w", spec, err)
	}
	if every, ok := strings.CutPrefix(spec, "@every "); ok {
		// robfig quietly turns anything under a second (even negative) into 1s.
		if d, err := time.ParseDuration(every); err != nil || d < time.Second {
			return nil, fmt.Errorf("invalid schedule %q: want an interval of at least 1s", spec)
		}
	}
	return zoned{s, loc}, nil
}

// zoned computes a cron schedule's slots on loc's wall clock: the spec is
// evaluated on a wall-clock time (held as UTC, which has no DST) and the
// result is placed back in loc. So a wall-clock slot fires once on the day
// clocks go back (robfig alone fires 01:30 twice), and a slot inside the
// hour skipped when clocks go forward runs an hour later instead of not at
// all (robfig alone skips that day). @every counts real elapsed time.
type zoned struct {
	s   cron.Schedule
	loc *time.Location
}

func (z zoned) Next(t time.Time) time.Time {
	if _, every := z.s.(cron.ConstantDelaySchedule); every {
		return z.s.Next(t)
	}
	wall := wallClock(t.In(z.loc))
	// Only slots inside a repeated hour can land at or before t; a few
	// steps always leave it, the bound only guards against a bad zone.
	for range 8 {
		if wall = z.s.Next(wall); wall.IsZero() {
			return wall
		}
		next := z.place(wall)
		if next.After(t) {
			return next
		}
		if later := secondInstant(next); later.After(t) {
			return later
		}
	}
	return time.Time{}
}

// place turns a wall-clock time into an instant in loc: the first of the
// two instants of a repeated wall-clock time, and for a wall-clock time
// that does not exist (skipped by DST) the instant past the gap.
func (z zoned) place(wall time.Time) time.Time {
	t := time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(),
		wall.Second(), wall.Nanosecond(), z.loc)
	if gap := wall.Sub(wallClock(t.In(z.loc))); gap > 0 {
		return t.Add(gap)
	}
	return firstInstant(t)
}

// firstInstant is the first instant of t's wall-clock time in t's
// location when clocks went back, else t. time.Date and
// time.ParseInLocation pick either: the first west of UTC, the second
// east of it (they read the zone's offset at the wall-clock time taken as
// UTC).
func firstInstant(t time.Time) time.Time {
	_, offset := t.Zone()
	_, before := t.Add(-12 * time.Hour).Zone()
	if before <= offset {
		return t
	}
	earlier := t.Add(-time.Duration(before-offset) * time.Second)
	if !wallClock(earlier.In(t.Location())).Equal(wallClock(t)) {
		return t
	}
	return earlier
}

// secondInstant is the second instant of t's wall-clock time in t's
// location when clocks went back, else t.
func secondInstant(t time.Time) time.Time {
	_, before := t.Zone()
	_, after := t.Add(12 * time.Hour).Zone()
	if before <= after {
		return t
	}
	later := t.Add(time.Duration(before-after) * time.Second)
	if !wallClock(later.In(t.Location())).Equal(wallClock(t)) {
		return t
	}
	return later
}

func wallClock(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}

type oneShot time.Time

func (o oneShot) Next(t time.Time) time.Time {
	if at := time.Time(o); t.Before(at) {
		return at
	}
	return time.Time{}
}

// OneShotSpec is the stored spec of a task that runs once at t.
func OneShotSpec(t time.Time) string { return atPrefix + t.UTC().Format(time.RFC3339) }

// EverySpec turns a --every duration ("2h", "90s") into an @every spec.
func EverySpec(d string) (string, error) {
	dur, err := ParseDuration(d)
	if err != nil {
		return "", err
	}
	if dur < time.Second {
		return "", fmt.Errorf("--every %s: the shortest interval is 1s", d)
	}
	return "@every " + shortDuration(dur), nil
}

// shortDuration drops Go's zero units: 2h rather than 2h0m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// ParseDuration reads a Go duration ("90m", "2h") and also the Node scheduler's
// spelled form ("2 hours", "30 minutes", "1 day").
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if d, err := time.ParseDuration(s); err == nil {
		if d <= 0 {
			return 0, fmt.Errorf("duration %q must be positive", s)
		}
		return d, nil
	}
	var n int
	var unit string
	if _, err := fmt.Sscanf(s, "%d %s", &n, &unit); err != nil || n <= 0 {
		return 0, fmt.Errorf("invalid duration %q (examples: 90s, 30m, 2h, \"2 hours\")", s)
	}
	u, ok := spelledUnits[strings.TrimSuffix(strings.ToLower(unit), "s")]
	if !ok {
		return 0, fmt.Errorf("invalid duration %q: unknown unit %q", s, unit)
	}
	if int64(n) > int64(math.MaxInt64/u) {
		return 0, fmt.Errorf("duration %q is too long", s)
	}
	return time.Duration(n) * u, nil
}

var spelledUnits = map[string]time.Duration{
	"second": time.Second, "sec": time.Second,
	"minute": time.Minute, "min": time.Minute,
	"hour": time.Hour, "day": 24 * time.Hour, "week": 7 * 24 * time.Hour,
}

// ParseAt reads a --at time: RFC 3339, "2006-01-02 15:04", or "15:04"
// (the next such wall-clock time in loc).
func ParseAt(s string, now time.Time, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return firstInstant(t), nil
		}
	}
	clock, err := time.ParseInLocation("15:04", s, loc)
	if err != nil {
		return time.Time{}, fmt.Errorf("invalid time %q (examples: 2026-03-15T09:00:00Z, \"2026-03-15 09:00\", 09:00)", s)
	}
	local := now.In(loc)
	// The next time the clock shows it: today, in the repeated hour
	// maybe its second pass, else tomorrow.
	t := firstInstant(time.Date(local.Year(), local.Month(), local.Day(), clock.Hour(), clock.Minute(), 0, 0, loc))
	if !t.After(now) {
		t = secondInstant(t)
	}
	if !t.After(now) {
		t = firstInstant(time.Date(local.Year(), local.Month(), local.Day()+1, clock.Hour(), clock.Minute(), 0, 0, loc))
	}
	return t, nil
}
