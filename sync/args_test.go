package c4sync

import (
	"errors"
	"testing"
)

func TestParseFetchArgs(t *testing.T) {
	tests := []struct {
		args       []string
		begin, end int64
		usage      bool
		other      bool
	}{
		{args: []string{"--begin", "1", "--end", "5"}, begin: 1, end: 5},
		{args: []string{"--end=7", "--begin=7"}, begin: 7, end: 7},
		{args: []string{"--begin", "1"}, usage: true},
		{args: []string{"--begin", "1", "--end"}, usage: true},
		{args: []string{"--begin", "x", "--end", "2"}, usage: true},
		{args: []string{"--begin", "-1", "--end", "2"}, usage: true},
		{args: []string{"--begin", "5", "--end", "2"}, other: true},
		{args: nil, usage: true},
	}
	for _, tt := range tests {
		b, e, err := ParseFetchArgs(tt.args)
		switch {
		case tt.usage && !errors.Is(err, ErrUsage), tt.other && (err == nil || errors.Is(err, ErrUsage)):
			t.Errorf("%q: err %v", tt.args, err)
		case !tt.usage && !tt.other && (err != nil || b != tt.begin || e != tt.end):
			t.Errorf("%q: %d %d %v", tt.args, b, e, err)
		}
	}
}

func TestParseCheckpointArgs(t *testing.T) {
	s := "text"
	tests := []struct {
		args []string
		want CheckpointArgs
		bad  bool
	}{
		{args: []string{"12"}, want: CheckpointArgs{Action: "create", End: 12, Limit: 10}},
		{args: []string{"--summary", "text", "12"}, want: CheckpointArgs{Action: "create", End: 12, Summary: &s, Limit: 10}},
		{args: []string{"create", "12", "--summary=text"}, want: CheckpointArgs{Action: "create", End: 12, Summary: &s, Limit: 10}},
		{args: []string{"list", "--limit", "3"}, want: CheckpointArgs{Action: "list", Limit: 3}},
		{args: []string{"latest"}, want: CheckpointArgs{Action: "latest", Limit: 10}},
		{args: nil, bad: true},
		{args: []string{"1", "2"}, bad: true},
		{args: []string{"latest", "2"}, bad: true},
		{args: []string{"12", "--summary"}, bad: true},
		{args: []string{"list", "--limit", "0"}, bad: true},
	}
	for _, tt := range tests {
		got, err := ParseCheckpointArgs(tt.args)
		if tt.bad {
			if !errors.Is(err, ErrUsage) {
				t.Errorf("%q: err %v, want usage", tt.args, err)
			}
			continue
		}
		if err != nil || got.Action != tt.want.Action || got.End != tt.want.End || got.Limit != tt.want.Limit ||
			(got.Summary == nil) != (tt.want.Summary == nil) || (got.Summary != nil && *got.Summary != *tt.want.Summary) {
			t.Errorf("%q: %+v %v", tt.args, got, err)
		}
	}
}

// FuzzParseArgs checks that no command line makes the parsers panic, and
// that what they accept is a valid range or checkpoint.
func FuzzParseArgs(f *testing.F) {
	for _, s := range []string{"--begin\x001\x00--end\x005", "create\x0012\x00--summary=x", "list\x00--limit\x002", "--begin=9\x00--end=1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := splitNUL(line)
		if b, e, err := ParseFetchArgs(args); err == nil && (b < 0 || b > e) {
			t.Fatalf("accepted range %d..%d", b, e)
		}
		if a, err := ParseCheckpointArgs(args); err == nil && (a.End < 0 || a.Limit < 1) {
			t.Fatalf("accepted %+v", a)
		}
	})
}

func splitNUL(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// TestParseCheckpointCommand: zylos v0.7.1's c4-checkpoint.js command
// line: subcommands only, list without --limit lists all, --limit a
// positive integer.
func TestParseCheckpointCommand(t *testing.T) {
	s := "text"
	tests := []struct {
		args []string
		want CheckpointArgs
		err  error
	}{
		{args: []string{"create", "10", "--summary", "text"}, want: CheckpointArgs{Action: "create", End: 10, Summary: &s, Limit: -1}},
		{args: []string{"create", "10"}, want: CheckpointArgs{Action: "create", End: 10, Limit: -1}},
		{args: []string{"list"}, want: CheckpointArgs{Action: "list", Limit: -1}},
		{args: []string{"list", "--limit", "2"}, want: CheckpointArgs{Action: "list", Limit: 2}},
		{args: []string{"latest"}, want: CheckpointArgs{Action: "latest", Limit: 1}},
		{args: nil, err: ErrNoEndID},
		{args: []string{"--help"}, err: ErrHelp},
		{args: []string{"-h"}, err: ErrHelp},
		{args: []string{"50"}, err: ErrUnknownCommand},
		{args: []string{"foobar"}, err: ErrUnknownCommand},
		{args: []string{"create"}, err: ErrUsage},
		{args: []string{"create", "--summary", "x"}, err: ErrUsage},
		{args: []string{"create", "abc"}, err: ErrUsage},
		{args: []string{"create", "1", "--summary"}, err: ErrUsage},
		{args: []string{"list", "--limit", "-1"}, err: ErrUsage},
		{args: []string{"list", "--limit", "1.5"}, err: ErrUsage},
		{args: []string{"list", "--limit"}, err: ErrUsage},
	}
	for _, tt := range tests {
		got, err := ParseCheckpointCommand(tt.args)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("%q: err %v, want %v", tt.args, err, tt.err)
			}
			continue
		}
		if err != nil || got.Action != tt.want.Action || got.End != tt.want.End || got.Limit != tt.want.Limit ||
			(got.Summary == nil) != (tt.want.Summary == nil) || got.Summary != nil && *got.Summary != *tt.want.Summary {
			t.Errorf("%q: %+v %v, want %+v", tt.args, got, err, tt.want)
		}
	}
}
