package hooks

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// runWith runs h as a throwaway entry point and returns exit, stdout, stderr.
func runWith(t *testing.T, h Handler, stdin io.Reader, deadline time.Duration) (int, string, string) {
	t.Helper()
	ev := Event{Name: "Test", Command: "test-" + strings.ReplaceAll(t.Name(), "/", "-")}
	handlers[ev.Command] = h
	t.Cleanup(func() { delete(handlers, ev.Command) })
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), ev, Options{Deadline: deadline, Stdin: stdin, Stdout: &stdout, Stderr: &stderr})
	return code, stdout.String(), stderr.String()
}

func TestRunFailsOpen(t *testing.T) {
	block := func(ctx context.Context, _ Env, _ Input) (Answer, error) {
		select {} // ignores ctx on purpose
	}
	tests := []struct {
		name       string
		h          Handler
		stdin      io.Reader
		wantStdout string
		wantStderr string
	}{
		{
			name:       "error",
			h:          func(context.Context, Env, Input) (Answer, error) { return Answer{}, errors.New("disk on fire") },
			stdin:      strings.NewReader(`{}`),
			wantStderr: "disk on fire (failing open)",
		},
		{
			name:       "panic",
			h:          func(context.Context, Env, Input) (Answer, error) { panic("boom") },
			stdin:      strings.NewReader(`{}`),
			wantStderr: "internal error: boom (failing open)",
		},
		{
			name:       "handler past the deadline",
			h:          block,
			stdin:      strings.NewReader(`{}`),
			wantStderr: "no answer within the deadline",
		},
		{
			name: "garbage stdin still answers",
			h: func(_ context.Context, _ Env, in Input) (Answer, error) {
				return ContextAnswer("Test", "ctx"), nil
			},
			stdin:      strings.NewReader("\x00garbage"),
			wantStdout: `{"hookSpecificOutput":{"hookEventName":"Test","additionalContext":"ctx"}}` + "\n",
			wantStderr: "hook input is not a JSON object",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runWith(t, tt.h, tt.stdin, 100*time.Millisecond)
			if code != 0 {
				t.Errorf("exit = %d, want 0", code)
			}
			if stdout != tt.wantStdout {
				t.Errorf("stdout = %q, want %q", stdout, tt.wantStdout)
			}
			if !strings.Contains(stderr, tt.wantStderr) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr = %q, want one line containing %q", stderr, tt.wantStderr)
			}
		})
	}
}

func TestRunStdinNeverClosed(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	answer := func(context.Context, Env, Input) (Answer, error) { return ContextAnswer("Test", "still here"), nil }
	start := time.Now()
	code, stdout, stderr := runWith(t, answer, r, 200*time.Millisecond)
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Fatalf("took %v with an open stdin", elapsed)
	}
	if code != 0 || !strings.Contains(stdout, "still here") || !strings.Contains(stderr, "stdin still open") {
		t.Errorf("code %d stdout %q stderr %q", code, stdout, stderr)
	}
}

func TestRunPassesBlockingAnswer(t *testing.T) {
	block := func(context.Context, Env, Input) (Answer, error) {
		return Answer{Message: "save your memories first", Code: 2}, nil
	}
	code, stdout, stderr := runWith(t, block, strings.NewReader(`{}`), time.Second)
	if code != 2 || stdout != "" || stderr != "save your memories first\n" {
		t.Errorf("code %d stdout %q stderr %q", code, stdout, stderr)
	}
}

// TestRunFinishedAfterTheEntryPoint: an entry point that outlives the
// deadline is reported finished when it returns, not when Run does, so a
// long-running caller can bound the ones still at work.
func TestRunFinishedAfterTheEntryPoint(t *testing.T) {
	release := make(chan struct{})
	ev := Event{Name: "Test", Command: "test-finished"}
	handlers[ev.Command] = func(context.Context, Env, Input) (Answer, error) {
		<-release // ignores ctx, as a read on a hung mount would
		return Answer{}, nil
	}
	t.Cleanup(func() { delete(handlers, ev.Command) })
	finished := make(chan struct{})
	code := Run(context.Background(), ev, Options{
		Deadline: 20 * time.Millisecond, Stdin: strings.NewReader(`{}`), Stdout: io.Discard, Stderr: io.Discard,
		Finished: func() { close(finished) },
	})
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	select {
	case <-finished:
		t.Fatal("finished before the entry point returned")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	select {
	case <-finished:
	case <-time.After(5 * time.Second):
		t.Fatal("never finished")
	}
}
