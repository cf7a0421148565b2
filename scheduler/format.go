package scheduler

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

const timeLayout = "2006-01-02 15:04:05 MST"

// FormatTime shows a time in loc, "-" for none.
func FormatTime(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return "-"
	}
	return t.In(loc).Format(timeLayout)
}

// MissWindowText is a miss window as the CLI shows it.
func MissWindowText(d time.Duration) string {
	if d < 0 {
		return "always"
	}
	return d.String()
}

// WriteTasks prints tasks as a table, times in loc.
func WriteTasks(w io.Writer, tasks []*Task, loc *time.Location) error {
	if len(tasks) == 0 {
		_, err := fmt.Fprintln(w, "No scheduled tasks.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSCHEDULE\tPRIORITY\tIDLE\tENABLED\tNEXT RUN\tLAST RUN\tLAST STATUS")
	for _, t := range tasks {
		sched := t.Schedule
		if t.Timezone != "" {
			sched += " (" + t.Timezone + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", t.Name, sched, t.Priority,
			yesNo(t.RequireIdle), yesNo(t.Enabled), FormatTime(t.NextRun, loc),
			FormatTime(t.LastRun, loc), dash(t.LastStatus))
	}
	return tw.Flush()
}

// WriteTasksJSON prints tasks as a JSON array.
func WriteTasksJSON(w io.Writer, tasks []*Task) error {
	type jsonTask struct {
		*Task
		MissWindow string `json:"miss_window"`
	}
	out := make([]jsonTask, 0, len(tasks))
	for _, t := range tasks {
		out = append(out, jsonTask{t, MissWindowText(t.MissWindow)})
	}
	return writeIndented(w, out)
}

// WriteRuns prints run history rows, times in loc.
func WriteRuns(w io.Writer, runs []*Run, loc *time.Location) error {
	if len(runs) == 0 {
		_, err := fmt.Fprintln(w, "No runs yet.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SLOT\tTASK\tSTATUS\tFINISHED\tDETAIL")
	for _, r := range runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", FormatTime(r.Slot, loc), r.Task, r.Status,
			FormatTime(r.Finished, loc), dash(r.Detail))
	}
	return tw.Flush()
}

// WriteRunsJSON prints run history rows as a JSON array.
func WriteRunsJSON(w io.Writer, runs []*Run) error {
	if runs == nil {
		runs = []*Run{}
	}
	return writeIndented(w, runs)
}

func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
