package tiers

import (
	"fmt"
	"time"
)

// NowEnv fixes the clock for tests and reproducible runs (RFC 3339). It is
// the only way the binary's notion of "now" can be changed.
const NowEnv = "ZYLOS_MEMORY_NOW"

// Clock is the clock an environment asks for: NowEnv's time when set,
// else the wall clock. lookupEnv is os.LookupEnv, or the environment of
// a process the resident service answers for.
func Clock(lookupEnv func(string) (string, bool)) (func() time.Time, error) {
	fixed, ok := lookupEnv(NowEnv)
	if !ok || fixed == "" {
		//processglobal: the wall clock, when ZYLOS_MEMORY_NOW fixes none
		return time.Now, nil
	}
	t, err := time.Parse(time.RFC3339Nano, fixed)
	if err != nil {
		return nil, fmt.Errorf("%s=%q: want RFC 3339 time: %w", NowEnv, fixed, err)
	}
	return func() time.Time { return t }, nil
}
