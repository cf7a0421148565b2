// Package check is the doctor's vocabulary: one line of its report. It
// imports nothing of the project, so that the packages whose state the
// doctor reports (the hook service, the dashboard) can give their own
// lines without importing the doctor, which lists them.
package check

import "fmt"

// Statuses, as the doctor prints them.
const (
	OK   = "ok"
	Warn = "warn"
	Fail = "FAIL"
)

// Check is one line of the doctor's report.
type Check struct {
	Status string
	Name   string
	Detail string
}

func (c Check) String() string { return fmt.Sprintf("%-4s  %s: %s", c.Status, c.Name, c.Detail) }
