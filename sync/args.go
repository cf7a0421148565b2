package c4sync

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// FetchUsage is the Node c4-fetch.js usage line, printed for bad arguments.
const FetchUsage = "Usage: c4-fetch.js --begin <id> --end <id>"

// ErrUsage marks arguments that do not form a valid command line.
var ErrUsage = errors.New("usage")

// usageError is a bad command line; its text says what is wrong and it
// matches ErrUsage.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }
func (e *usageError) Unwrap() error { return ErrUsage }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// ParseFetchArgs reads `--begin X --end Y` (also `--begin=X`) the way
// c4-fetch.js does, except that ids must be whole non-negative numbers and
// begin may not exceed end.
func ParseFetchArgs(args []string) (begin, end int64, err error) {
	var b, e *int64
	for i := 0; i < len(args); i++ {
		name, val, inline := strings.Cut(args[i], "=")
		if name != "--begin" && name != "--end" {
			continue
		}
		if !inline {
			if i+1 >= len(args) {
				return 0, 0, ErrUsage
			}
			i++
			val = args[i]
		}
		id, err := ParseID(val)
		if err != nil {
			return 0, 0, ErrUsage
		}
		if name == "--begin" {
			b = &id
		} else {
			e = &id
		}
	}
	if b == nil || e == nil {
		return 0, 0, ErrUsage
	}
	if *b > *e {
		return 0, 0, fmt.Errorf("begin id %d is greater than end id %d", *b, *e)
	}
	return *b, *e, nil
}

// WantsUnsummarized reports the `--unsummarized` form of c4-fetch.js
// (zylos-core v0.7.1), which takes precedence over --begin/--end there.
func WantsUnsummarized(args []string) bool {
	for _, a := range args {
		if a == "--unsummarized" {
			return true
		}
	}
	return false
}

// ParseID parses a conversation id: a whole number, 0 or more.
func ParseID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if errors.Is(err, strconv.ErrRange) && id > 0 {
		return 0, fmt.Errorf("%q is past the largest id SQLite can store (%d)", s, int64(math.MaxInt64))
	}
	if err != nil || id < 0 {
		return 0, fmt.Errorf("%q is not a conversation id (a whole number, 0 or more)", s)
	}
	return id, nil
}

// CheckpointArgs is a parsed `c4 checkpoint` command line.
type CheckpointArgs struct {
	Action  string // "create", "list" or "latest"
	End     int64
	Summary *string
	Limit   int
}

// CheckpointUsage lists the forms `c4 checkpoint` accepts.
const CheckpointUsage = `Usage:
  c4-checkpoint.js <end_id> [--summary "text"]
  c4-checkpoint.js create <end_id> [--summary "text"]
  c4-checkpoint.js list [--limit N]
  c4-checkpoint.js latest`

// CheckpointShortUsage is the one line c4-checkpoint.js prints when it is
// given no end id.
const CheckpointShortUsage = `Usage: c4-checkpoint.js <end_conversation_id> [--summary "<summary>"]`

// ErrNoEndID is a checkpoint command line without any id or subcommand.
var ErrNoEndID = &usageError{"an end id is required"}

// ParseCheckpointArgs reads `<end> [--summary S]`, `create <end> [--summary
// S]`, `list [--limit N]` or `latest`; flags may come before or after the id.
func ParseCheckpointArgs(args []string) (CheckpointArgs, error) {
	a := CheckpointArgs{Action: "create", Limit: 10}
	var pos []string
	for i := 0; i < len(args); i++ {
		name, val, inline := strings.Cut(args[i], "=")
		if name != "--summary" && name != "--limit" {
			pos = append(pos, args[i])
			continue
		}
		if !inline {
			if i+1 >= len(args) {
				return a, usagef("%s needs a value", name)
			}
			i++
			val = args[i]
		}
		if name == "--summary" {
			a.Summary = &val
		} else if n, err := strconv.Atoi(val); err != nil || n < 1 {
			return a, usagef("--limit %q is not a positive number", val)
		} else {
			a.Limit = n
		}
	}
	if len(pos) > 0 && (pos[0] == "create" || pos[0] == "list" || pos[0] == "latest") {
		a.Action, pos = pos[0], pos[1:]
	}
	if a.Action != "create" {
		if len(pos) > 0 {
			return a, usagef("%s takes no argument, got %q", a.Action, pos[0])
		}
		return a, nil
	}
	switch {
	case len(pos) == 0:
		return a, ErrNoEndID
	case len(pos) > 1:
		return a, usagef("unexpected argument %q", pos[1])
	}
	end, err := ParseID(pos[0])
	if err != nil {
		return a, usagef("end id %v", err)
	}
	a.End = end
	return a, nil
}

// CheckpointCommandUsage is the usage of `c4 checkpoint` in zylos v0.7.1's
// dialect (tiers.C4Dialect.Subcommands), the lines its c4-checkpoint.js
// prints on stderr.
const CheckpointCommandUsage = `Usage: c4-checkpoint.js <command> [options]
  create <end_conversation_id> [--summary "<summary>"]
  list [--limit <n>]
  latest`

// ErrHelp is a command line that asks for the usage (--help, -h).
var ErrHelp = errors.New("help requested")

// ErrUnknownCommand is a checkpoint command line whose first word is no
// subcommand (a bare id included) in v0.7.1's dialect.
var ErrUnknownCommand = errors.New("unknown command")

// ParseCheckpointCommand reads a `c4 checkpoint` command line in zylos
// v0.7.1's dialect: `create <end> [--summary S]`, `list [--limit N]` (all
// of them without --limit: Limit -1) or `latest`. No command is
// ErrNoEndID, --help or -h first ErrHelp, another first word
// ErrUnknownCommand; ids must be whole non-negative numbers.
func ParseCheckpointCommand(args []string) (CheckpointArgs, error) {
	if len(args) == 0 {
		return CheckpointArgs{}, ErrNoEndID
	}
	a := CheckpointArgs{Action: args[0], Limit: -1}
	rest := args[1:]
	switch a.Action {
	case "--help", "-h":
		return a, ErrHelp
	case "create":
		if len(rest) == 0 || strings.HasPrefix(rest[0], "--") {
			return a, usagef("create requires <end_conversation_id>")
		}
		end, err := ParseID(rest[0])
		if err != nil {
			return a, usagef("end_conversation_id %v", err)
		}
		a.End = end
		summary, err := flagValue(rest[1:], "--summary")
		if err != nil || summary == nil {
			return a, err
		}
		a.Summary = summary
	case "list":
		limit, err := flagValue(rest, "--limit")
		if err != nil || limit == nil {
			return a, err
		}
		n, err := strconv.Atoi(*limit)
		if err != nil || n < 1 {
			return a, usagef("--limit must be a positive integer")
		}
		a.Limit = n
	case "latest":
		a.Limit = 1
	default:
		return a, fmt.Errorf("%w: %s", ErrUnknownCommand, a.Action)
	}
	return a, nil
}

// flagValue is the value after the first name in args (nil when name is
// not there), an error when nothing follows it.
func flagValue(args []string, name string) (*string, error) {
	for i, arg := range args {
		if arg != name {
			continue
		}
		if i+1 >= len(args) || args[i+1] == "" {
			return nil, usagef("missing value for %s", name)
		}
		return &args[i+1], nil
	}
	return nil, nil
}
