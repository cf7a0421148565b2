package scheduler

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/zylos/zylos-memory/tiers"
)

// WriteStatus prints the scheduler section of `status`: whether the daemon
// runs and each task's next and last run. It prints nothing for a home
// whose scheduler was never set up, so the Node-parity output stays as is.
func WriteStatus(w io.Writer, l tiers.Layout, loc *time.Location) error {
	if _, err := os.Stat(DBPath(l)); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	s, err := OpenRead(l)
	if err != nil {
		return err
	}
	defer s.Close()
	tasks, err := s.List()
	if err != nil {
		return err
	}
	state := "not running (start it with: zylos-memory scheduler run)"
	if running, pid := Running(l); running {
		state = "running (pid " + pid + ")"
	}
	if _, err := fmt.Fprintf(w, "\nScheduler: %s\n", state); err != nil {
		return err
	}
	return WriteTasks(w, tasks, loc)
}
