package lazy

import (
	"regexp"
	"sync"
)

// Regexp returns a function that compiles expr on its first call and
// returns the same *regexp.Regexp on every call. Like regexp.MustCompile
// it panics on a bad expression, so every use must be covered by a test.
func Regexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
