package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// diskFullEnv carries, to TestHelperDiskFull run as a child process, the
// binary to run and the directory to mount the small tmpfs on.
const diskFullEnv = "ZYLOS_MEMORY_TEST_DISK_FULL"

// diskFullReport is what the helper saw: how each step ended.
type diskFullReport struct {
	Skip  string
	Steps map[string]testutil.Result
}

// TestHelperDiskFull is not a test: run as a child process in a mount
// namespace of its own, it mounts a 1 MB tmpfs, makes a home on it with
// one task, fills the disk, tries to add a second task, and lists the
// tasks once the space is freed. It prints its report as one JSON line after "REPORT ".
func TestHelperDiskFull(t *testing.T) {
	spec := os.Getenv(diskFullEnv)
	if spec == "" {
		t.Skip("helper process only")
	}
	bin, dir, _ := strings.Cut(spec, string(os.PathListSeparator))
	report := diskFullReport{Steps: map[string]testutil.Result{}}
	defer func() {
		line, _ := json.Marshal(report)
		fmt.Printf("\nREPORT %s\n", line)
	}()
	// Private first, so the tmpfs is never seen outside this namespace.
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		report.Skip = "cannot make mounts private: " + err.Error()
		return
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=1m"); err != nil {
		report.Skip = "cannot mount a tmpfs: " + err.Error()
		return
	}
	home := filepath.Join(dir, "zylos")
	run := func(step string, args ...string) {
		cmd := exec.Command(bin, append([]string{"--zylos-dir", home}, args...)...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TZ=UTC"}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		res := testutil.Result{Stdout: stdout.String(), Stderr: stderr.String()}
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			res.Code = exit.ExitCode()
		} else if err != nil {
			res.Code, res.Stderr = -1, err.Error()
		}
		report.Steps[step] = res
	}
	run("init", "init")
	run("add a", "scheduler", "add", "first", "--every", "1h", "--name", "a")
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		report.Skip = "cannot create the filler: " + err.Error()
		return
	}
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			break
		}
	}
	f.Close()
	run("add b", "scheduler", "add", strings.Repeat("a long prompt ", 400), "--every", "1h", "--name", "b")
	os.Remove(f.Name())
	run("list", "scheduler", "list")
}

// On a full disk, `scheduler add` says the disk is full and that nothing
// changed; it never calls the state DB unreadable nor advises moving it
// aside, which would throw the schedule away.
func TestSchedulerAddOnFullDisk(t *testing.T) {
	bin := testutil.Binary(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperDiskFull$")
	cmd.Env = append(os.Environ(), diskFullEnv+"="+bin+string(os.PathListSeparator)+t.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS}
	if os.Geteuid() != 0 {
		cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
	}
	out, err := cmd.Output()
	if err != nil && !bytes.Contains(out, []byte("REPORT ")) {
		t.Skipf("no mount namespace for a small tmpfs (needs root or user namespaces): %v", err)
	}
	var report diskFullReport
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "REPORT "); ok {
			if err := json.Unmarshal([]byte(line), &report); err != nil {
				t.Fatal(err)
			}
		}
	}
	if report.Skip != "" {
		t.Skip(report.Skip)
	}
	for _, step := range []string{"init", "add a"} {
		if res := report.Steps[step]; res.Code != 0 {
			t.Fatalf("%s before the disk filled up: %+v", step, res)
		}
	}
	add := report.Steps["add b"]
	if add.Code != 1 || !strings.Contains(add.Stderr, "no space left on the disk for the scheduler state DB") ||
		!strings.Contains(add.Stderr, "nothing was changed; free some space") ||
		strings.Contains(add.Stderr, "unreadable") || strings.Contains(add.Stderr, "move it aside") {
		t.Errorf("add on a full disk: exit %d, stderr %q", add.Code, add.Stderr)
	}
	if list := report.Steps["list"]; list.Code != 0 || !strings.Contains(list.Stdout, "\na ") || strings.Contains(list.Stdout, "\nb ") {
		t.Errorf("list once space is free: %+v, want task a only", list)
	}
}
