package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestRunMapsErrorsToExitCodes(t *testing.T) {
	testCommands := []*cli.Command{{
		Name:   "test-fail",
		Hidden: true,
		Action: func(*cli.Context) error { return cli.Exit("custom failure", 3) },
	}, {
		Name:   "test-panic",
		Hidden: true,
		Action: func(*cli.Context) error { panic("boom") },
	}}
	tests := []struct {
		args       []string
		wantCode   int
		wantStderr string
	}{
		{[]string{"test-fail"}, 3, "custom failure\n"},
		{[]string{"test-panic"}, 70, "zylos-memory: internal error: boom\n"},
		{[]string{"--no-such-flag"}, 1, "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			app := newApp(strings.NewReader(""), &stdout, &stderr, testCommands...)
			code := run(app, append([]string{"zylos-memory"}, tt.args...))
			if code != tt.wantCode {
				t.Errorf("exit = %d, want %d", code, tt.wantCode)
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr.String(), tt.wantStderr)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	cli.VersionPrinter = printVersion
	for _, arg := range []string{"--version", "-v"} {
		var stdout, stderr bytes.Buffer
		code := run(newApp(strings.NewReader(""), &stdout, &stderr), []string{"zylos-memory", arg})
		if code != 0 || !strings.HasPrefix(stdout.String(), "zylos-memory "+version) || stderr.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", arg, code, stdout.String(), stderr.String())
		}
	}
}
