package fulltext

import (
	"os/exec"
	"syscall"
)

// BackgroundReindex is an Options.Background that starts `binary
// --zylos-dir DIR reindex` in a session of its own, detached from the
// caller, with no input or output. A hook process exits without waiting
// for it; a long-running one (the memory service) reaps it when it ends.
// With binary "", there is none.
func BackgroundReindex(binary, zylosDir string) func() error {
	if binary == "" {
		return nil
	}
	return func() error {
		cmd := exec.Command(binary, "--zylos-dir", zylosDir, "reindex")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			return err
		}
		go cmd.Wait()
		return nil
	}
}
