package fulltext

import (
	"os/exec"
	"syscall"
)

// BackgroundReindex is an Options.Background that starts `binary
// --zylos-dir DIR reindex` in a session of its own, detached from the
// caller (which exits without waiting for it), with no input or output.
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
		return cmd.Process.Release()
	}
}
