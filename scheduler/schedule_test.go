package scheduler

import (
	"strings"
	"testing"
	"time"
)

func mustLoc(tb testing.TB, name string) *time.Location {
	tb.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		tb.Fatal(err)
	}
	return loc
}

func mustTime(tb testing.TB, s string) time.Time {
	tb.Helper()
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

func TestScheduleNext(t *testing.T) {
	tests := []struct {
		name, spec, tz, from string
		want                 []string // successive slots, UTC
	}{
		{"daily at midnight", "0 0 * * *", "UTC", "2026-03-15T10:30:00Z",
			[]string{"2026-03-16T00:00:00Z", "2026-03-17T00:00:00Z"}},
		{"exactly on a slot moves on", "0 0 * * *", "UTC", "2026-03-16T00:00:00Z",
			[]string{"2026-03-17T00:00:00Z"}},
		{"even hours in New York", "0 */2 * * *", "America/New_York", "2026-03-15T10:30:00Z",
			[]string{"2026-03-15T12:00:00Z", "2026-03-15T14:00:00Z"}},
		{"weekly Sunday 02:00", "0 2 * * 0", "UTC", "2026-03-15T10:30:00Z",
			[]string{"2026-03-22T02:00:00Z", "2026-03-29T02:00:00Z"}},
		{"spring forward: skipped 02:30 runs at 03:30 EDT", "30 2 * * *", "America/New_York", "2026-03-07T12:00:00Z",
			[]string{"2026-03-08T07:30:00Z", "2026-03-09T06:30:00Z"}},
		{"spring forward: midnight unaffected", "0 0 * * *", "America/New_York", "2026-03-07T12:00:00Z",
			[]string{"2026-03-08T05:00:00Z", "2026-03-09T04:00:00Z"}},
		{"fall back: repeated 01:30 fires once", "30 1 * * *", "America/New_York", "2026-10-31T12:00:00Z",
			[]string{"2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"}},
		{"fall back: from inside the repeated hour", "30 1 * * *", "America/New_York", "2026-11-01T06:10:00Z",
			[]string{"2026-11-01T06:30:00Z", "2026-11-02T06:30:00Z"}},
		{"fall back east of UTC: the first 02:30 CEST", "30 2 * * *", "Europe/Berlin", "2026-10-25T00:10:00Z",
			[]string{"2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"}},
		{"fall back east of UTC: from the second pass", "30 2 * * *", "Europe/Berlin", "2026-10-25T01:10:00Z",
			[]string{"2026-10-25T01:30:00Z", "2026-10-26T01:30:00Z"}},
		{"fall back by half an hour: the first 01:50 LHDT", "50 1 * * *", "Australia/Lord_Howe", "2026-04-04T14:40:00Z",
			[]string{"2026-04-04T14:50:00Z", "2026-04-05T15:20:00Z"}},
		{"fall back: every minute keeps going", "* * * * *", "America/New_York", "2026-11-01T06:10:00Z",
			[]string{"2026-11-01T06:11:00Z", "2026-11-01T06:12:00Z"}},
		{"month end: 31st skips short months", "0 0 31 * *", "UTC", "2026-04-01T00:00:00Z",
			[]string{"2026-05-31T00:00:00Z", "2026-07-31T00:00:00Z"}},
		{"last of February in a leap year", "0 0 29 2 *", "UTC", "2026-01-01T00:00:00Z",
			[]string{"2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z"}},
		{"descriptor @daily in zone", "@daily", "Asia/Tokyo", "2026-03-15T10:30:00Z",
			[]string{"2026-03-15T15:00:00Z", "2026-03-16T15:00:00Z"}},
		{"@every counts elapsed time", "@every 2h", "America/New_York", "2026-11-01T04:30:00Z",
			[]string{"2026-11-01T06:30:00Z", "2026-11-01T08:30:00Z"}},
		{"@every 1s", "@every 1s", "UTC", "2026-03-15T10:30:00.400Z",
			[]string{"2026-03-15T10:30:01Z", "2026-03-15T10:30:02Z"}},
		{"seconds field", "30 * * * * *", "UTC", "2026-03-15T10:30:00Z",
			[]string{"2026-03-15T10:30:30Z", "2026-03-15T10:31:30Z"}},
		{"one-shot before", "@at 2026-03-15T11:00:00Z", "UTC", "2026-03-15T10:30:00Z",
			[]string{"2026-03-15T11:00:00Z", ""}},
		{"one-shot spent", "@at 2026-03-15T10:00:00Z", "UTC", "2026-03-15T10:30:00Z",
			[]string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseSchedule(tt.spec, mustLoc(t, tt.tz))
			if err != nil {
				t.Fatal(err)
			}
			at := mustTime(t, tt.from)
			for i, want := range tt.want {
				at = s.Next(at)
				got := ""
				if !at.IsZero() {
					got = at.UTC().Format(time.RFC3339)
				}
				if got != want {
					t.Fatalf("slot %d = %q, want %q", i+1, got, want)
				}
			}
		})
	}
}

func TestParseScheduleErrors(t *testing.T) {
	for _, spec := range []string{"", "61 * * * *", "* * *", "@sometimes", "@every -1h", "@at tomorrow",
		"CRON_TZ=UTC 0 0 * * *", "TZ=UTC 0 0 * * *"} {
		if _, err := ParseSchedule(spec, time.UTC); err == nil {
			t.Errorf("ParseSchedule(%q) succeeded, want an error", spec)
		}
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"90s", 90 * time.Second, ""},
		{"2h", 2 * time.Hour, ""},
		{"2 hours", 2 * time.Hour, ""},
		{"1 day", 24 * time.Hour, ""},
		{"30 minutes", 30 * time.Minute, ""},
		{"0s", 0, "must be positive"},
		{"-5m", 0, "must be positive"},
		{"2 fortnights", 0, "unknown unit"},
		{"soon", 0, "invalid duration"},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseDuration(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseAt(t *testing.T) {
	now := mustTime(t, "2026-03-15T10:30:00Z")
	ny := mustLoc(t, "America/New_York")
	tests := []struct{ in, want string }{
		{"2026-03-16T09:00:00Z", "2026-03-16T09:00:00Z"},
		{"2026-03-16 09:00", "2026-03-16T13:00:00Z"},
		{"09:00", "2026-03-15T13:00:00Z"}, // 06:30 in New York now: 09:00 is today
		{"06:00", "2026-03-16T10:00:00Z"}, // already past today: tomorrow
	}
	for _, tt := range tests {
		got, err := ParseAt(tt.in, now, ny)
		if err != nil {
			t.Fatalf("ParseAt(%q): %v", tt.in, err)
		}
		if g := got.UTC().Format(time.RFC3339); g != tt.want {
			t.Errorf("ParseAt(%q) = %s, want %s", tt.in, g, tt.want)
		}
	}
	if _, err := ParseAt("next tuesday", now, ny); err == nil {
		t.Error("ParseAt accepted nonsense")
	}
}

// TestParseAtInTheRepeatedHour: a wall-clock --at while clocks go back
// is its first instant still to come, east and west of UTC.
func TestParseAtInTheRepeatedHour(t *testing.T) {
	tests := []struct{ zone, now, in, want string }{
		{"Europe/Berlin", "2026-10-25T00:10:00Z", "02:30", "2026-10-25T00:30:00Z"},
		{"Europe/Berlin", "2026-10-25T00:10:00Z", "2026-10-25 02:30", "2026-10-25T00:30:00Z"},
		{"Europe/Berlin", "2026-10-25T00:40:00Z", "02:30", "2026-10-25T01:30:00Z"}, // the first has passed
		{"Europe/Berlin", "2026-10-25T01:40:00Z", "02:30", "2026-10-26T01:30:00Z"}, // both have
		{"Australia/Lord_Howe", "2026-04-04T14:40:00Z", "01:50", "2026-04-04T14:50:00Z"},
		{"America/New_York", "2026-11-01T05:10:00Z", "01:30", "2026-11-01T05:30:00Z"},
	}
	for _, tt := range tests {
		got, err := ParseAt(tt.in, mustTime(t, tt.now), mustLoc(t, tt.zone))
		if err != nil {
			t.Fatalf("%s %s: %v", tt.zone, tt.in, err)
		}
		if g := got.UTC().Format(time.RFC3339); g != tt.want {
			t.Errorf("%s at %s: ParseAt(%q) = %s, want %s", tt.zone, tt.now, tt.in, g, tt.want)
		}
	}
}

func FuzzParseSchedule(f *testing.F) {
	for _, s := range []string{"0 0 * * *", "@every 2h", "@at 2026-03-15T11:00:00Z", "*/5 1-3 * * 1-5", "@daily"} {
		f.Add(s)
	}
	ny := mustLoc(f, "America/New_York")
	from := mustTime(f, "2026-11-01T05:00:00Z")
	f.Fuzz(func(t *testing.T, spec string) {
		s, err := ParseSchedule(spec, ny)
		if err != nil {
			return
		}
		if next := s.Next(from); !next.IsZero() && !next.After(from) {
			t.Fatalf("Next(%v) = %v, not after", from, next)
		}
	})
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"90s", "2 hours", "1 day", "-1h", "3 weeks", "1e9 seconds", "9999999999999 days"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err == nil && d <= 0 {
			t.Fatalf("ParseDuration(%q) = %v without error", s, d)
		}
		if spec, err := EverySpec(s); err == nil {
			if _, err := ParseSchedule(spec, time.UTC); err != nil {
				t.Fatalf("EverySpec(%q) = %q does not parse: %v", s, spec, err)
			}
		}
	})
}
