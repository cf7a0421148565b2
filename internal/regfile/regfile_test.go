package regfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within fails the test when f blocks: a FIFO opened the ordinary way
// never returns.
func within(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("blocked on a FIFO")
		return nil
	}
}

func fifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "core.md")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

func TestFIFOIsRefusedWithoutBlocking(t *testing.T) {
	p := fifo(t)
	opens := map[string]func() error{
		"ReadFile": func() error { _, err := ReadFile(p); return err },
		"Open":     func() error { f, err := Open(p); closeIf(f); return err },
		"write":    func() error { f, err := OpenFile(p, os.O_WRONLY|os.O_APPEND, 0); closeIf(f); return err },
		"lock":     func() error { f, err := OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600); closeIf(f); return err },
		"Check":    func() error { return Check(p) },
	}
	for name, open := range opens {
		t.Run(name, func(t *testing.T) {
			err := within(t, open)
			if !errors.Is(err, ErrNotRegular) {
				t.Fatalf("err = %v, want ErrNotRegular", err)
			}
			if want := p + ": a named pipe (FIFO), not a regular file; refusing to open it"; err.Error() != want {
				t.Errorf("message %q, want %q", err, want)
			}
		})
	}
}

func closeIf(f *os.File) {
	if f != nil {
		f.Close()
	}
}

func TestDirectoryAndDeviceAreRefused(t *testing.T) {
	for _, p := range []string{t.TempDir(), "/dev/zero"} {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if _, err := ReadFile(p); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFile(%s) = %v, want ErrNotRegular", p, err)
		}
	}
}

func TestRegularFileReadsAsOSReadFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	want := strings.Repeat("line\n", 1000)
	if err := os.WriteFile(p, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(p)
	if err != nil || string(got) != want {
		t.Fatalf("ReadFile = %d bytes, %v", len(got), err)
	}
	f, err := OpenFile(p, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("more\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := ReadFileLimit(p, int64(len(want))); !errors.As(err, new(*TooLargeError)) {
		t.Errorf("ReadFileLimit over the limit = %v, want *TooLargeError", err)
	}
	if err := Check(p); err != nil {
		t.Errorf("Check(regular) = %v", err)
	}
}

func TestMissingFileIsNotExist(t *testing.T) {
	p := filepath.Join(t.TempDir(), "missing")
	if _, err := ReadFile(p); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(missing) = %v, want ErrNotExist", err)
	}
	if err := Check(p); err != nil {
		t.Errorf("Check(missing) = %v, want nil", err)
	}
}

func TestReadHeadReadsOnlyTheStart(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	head, size, err := ReadHead(p, 4)
	if err != nil || string(head) != "0123" || size != 10 {
		t.Fatalf("ReadHead(4) = %q, %d, %v", head, size, err)
	}
	head, size, err = ReadHead(p, 100)
	if err != nil || string(head) != "0123456789" || size != 10 {
		t.Fatalf("ReadHead(100) = %q, %d, %v", head, size, err)
	}
	if _, _, err := ReadHead(fifo(t), 4); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("ReadHead(FIFO) = %v", err)
	}
}
