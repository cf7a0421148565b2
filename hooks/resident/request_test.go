package resident

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/hooks"
)

func body(fields ...string) []byte { return []byte(strings.Join(fields, "\x00") + "\x00") }

func TestParseRequest(t *testing.T) {
	r, err := parseRequest(body(magic, "1:2:3:4.000000005", "/bin/zm", "/work", "1234", "18", "3", "/bin/zm", "hook", "user-prompt-submit", "A=1", "B=", "A=2"))
	if err != nil {
		t.Fatal(err)
	}
	want := request{identity: "1:2:3:4.000000005", exe: "/bin/zm", cwd: "/work", started: 1234, umask: 0o22,
		args: []string{"/bin/zm", "hook", "user-prompt-submit"}, env: []string{"A=1", "B=", "A=2"}}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("got %+v\nwant %+v", r, want)
	}
	if v, ok := r.lookupEnv("A"); v != "1" || !ok {
		t.Errorf("A = %q %v; the first of duplicates wins, as os.Getenv", v, ok)
	}
	if v, ok := r.lookupEnv("B"); v != "" || !ok {
		t.Errorf("B = %q %v; want set and empty", v, ok)
	}
	if _, ok := r.lookupEnv("C"); ok {
		t.Error("C is not set")
	}
}

func TestParseRequestRefuses(t *testing.T) {
	for name, b := range map[string][]byte{
		"empty":           nil,
		"other protocol":  body("zylos-memory hook/0", "i", "/bin/zm", "/", "7", "18", "1", "/bin/zm"),
		"no final NUL":    []byte(strings.Join([]string{magic, "i", "/bin/zm", "/", "7", "18", "1", "/bin/zm"}, "\x00")),
		"argc too large":  body(magic, "i", "/bin/zm", "/", "7", "18", "3", "/bin/zm", "hook"),
		"argc zero":       body(magic, "i", "/bin/zm", "/", "7", "18", "0", "X=1"),
		"argc not int":    body(magic, "i", "/bin/zm", "/", "7", "18", "two", "/bin/zm", "hook"),
		"argc not canon":  body(magic, "i", "/bin/zm", "/", "7", "18", "01", "/bin/zm"),
		"start negative":  body(magic, "i", "/bin/zm", "/", "-7", "18", "1", "/bin/zm"),
		"no start":        body(magic, "i", "/bin/zm", "/", "18", "1", "/bin/zm"),
		"no umask":        body(magic, "i", "/bin/zm", "/", "7", "1", "/bin/zm"),
		"umask too large": body(magic, "i", "/bin/zm", "/", "7", "512", "1", "/bin/zm"),
		"umask negative":  body(magic, "i", "/bin/zm", "/", "7", "-1", "1", "/bin/zm"),
	} {
		if _, err := parseRequest(b); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzParseRequest(f *testing.F) {
	f.Add(body(magic, "1:2:3:4.5", "/bin/zm", "/work", "99", "18", "3", "/bin/zm", "hook", "user-prompt-submit", "HOME=/h"))
	f.Add([]byte(magic + "\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseRequest(b)
		if err != nil {
			return
		}
		// What parses is what client.c would have sent.
		fields := append([]string{magic, r.identity, r.exe, r.cwd, itoa(int(r.started)), itoa(int(r.umask)), itoa(len(r.args))}, r.args...)
		if again := body(append(fields, r.env...)...); !bytes.Equal(again, b) {
			t.Fatalf("%q parsed as %+v, which reads back as %q", b, r, again)
		}
	})
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}

func TestParseArgs(t *testing.T) {
	tests := []struct {
		args     string
		dir, cmd string
		deadline time.Duration
	}{
		{"hook user-prompt-submit", "", "user-prompt-submit", hooks.DefaultDeadline},
		{"--zylos-dir /z hook user-prompt-submit", "/z", "user-prompt-submit", hooks.DefaultDeadline},
		{"-zylos-dir=/z hook user-prompt-submit --timeout 2s", "/z", "user-prompt-submit", 2 * time.Second},
		{"--zylos-dir=rel hook user-prompt-submit -timeout=1.5s", "rel", "user-prompt-submit", 1500 * time.Millisecond},
		{"--zylos-dir hook hook stop", "hook", "stop", hooks.DefaultDeadline},
		{"hook user-prompt-submit --timeout 0s", "", "user-prompt-submit", hooks.DefaultDeadline},
	}
	for _, tt := range tests {
		dir, cmd, d, err := parseArgs(strings.Fields(tt.args))
		if err != nil || dir != tt.dir || cmd != tt.cmd || d != tt.deadline {
			t.Errorf("%q: %q %q %v %v; want %q %q %v", tt.args, dir, cmd, d, err, tt.dir, tt.cmd, tt.deadline)
		}
	}
	for _, args := range []string{
		"", "hook", "status", "--help hook user-prompt-submit", "hook user-prompt-submit --help",
		"hook user-prompt-submit extra", "hook user-prompt-submit --timeout", "hook user-prompt-submit --timeout soon",
		"--zylos-dir= hook user-prompt-submit", "--timeout 1s hook user-prompt-submit",
		"hook user-prompt-submit --zylos-dir /z", "---zylos-dir /z hook user-prompt-submit", "-- hook user-prompt-submit",
	} {
		if dir, cmd, _, err := parseArgs(strings.Fields(args)); err == nil {
			t.Errorf("%q: accepted as %q %q; the process must answer it", args, dir, cmd)
		}
	}
}

func FuzzParseArgs(f *testing.F) {
	f.Add("--zylos-dir /z hook user-prompt-submit --timeout 2s")
	f.Fuzz(func(t *testing.T, line string) {
		dir, cmd, d, err := parseArgs(strings.Split(line, " "))
		if err == nil && (cmd == "" || d <= 0) {
			t.Fatalf("%q: %q %q %v", line, dir, cmd, d)
		}
	})
}

// The client bounds its wait for an answer by the hook's own deadline,
// which for a hook without --timeout is the entry points' default.
func TestClientKnowsTheDefaultDeadline(t *testing.T) {
	if got := time.Duration(defaultDeadlineMS) * time.Millisecond; got != hooks.DefaultDeadline {
		t.Fatalf("client.h says %v, hooks.DefaultDeadline is %v", got, hooks.DefaultDeadline)
	}
}

// TestParseCommand: the commands of zylos's session start are served in
// their plain form only, after no global flag but --zylos-dir.
func TestParseCommand(t *testing.T) {
	tests := []struct {
		args         []string
		dir, command string
		ok           bool
	}{
		{args: []string{"inject"}, command: "inject", ok: true},
		{args: []string{"session-start-inject"}, command: "inject", ok: true},
		{args: []string{"c4", "session-init"}, command: "c4 session-init", ok: true},
		{args: []string{"--zylos-dir", "/z", "inject"}, dir: "/z", command: "inject", ok: true},
		{args: []string{"-zylos-dir=/z", "c4", "session-init"}, dir: "/z", command: "c4 session-init", ok: true},
		{args: []string{"--zylos-dir=", "inject"}},
		{args: []string{"--zylos-dir"}},
		{args: []string{"inject", "--format", "claude"}},
		{args: []string{"c4", "session-init", "--threshold", "3"}},
		{args: []string{"c4"}},
		{args: []string{"--help", "inject"}},
		{args: []string{"--", "inject"}},
		{args: []string{"hook", "session-start"}},
		{args: nil},
	}
	for _, tt := range tests {
		dir, command, ok := parseCommand(tt.args)
		if dir != tt.dir || command != tt.command || ok != tt.ok {
			t.Errorf("%q: %q %q %v", tt.args, dir, command, ok)
		}
	}
}
