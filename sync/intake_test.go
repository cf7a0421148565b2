package c4sync

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestIntakeAccept(t *testing.T) {
	dir := t.TempDir()
	in := Intake{SkillsDir: filepath.Join(dir, "skills"), AttachmentsDir: filepath.Join(dir, "attachments"),
		Now: func() time.Time { return time.UnixMilli(1773570600123) }}
	os.MkdirAll(filepath.Join(in.SkillsDir, "telegram"), 0o755)
	os.WriteFile(filepath.Join(in.SkillsDir, "notadir"), nil, 0o644)
	route := ` ---- reply via: node ` + filepath.Join(in.SkillsDir, "comm-bridge", "scripts", "c4-send.js") + ` "telegram" "42"`

	got, err := in.Accept(Message{Channel: "telegram", Endpoint: "42", Content: "hi", Priority: 3}, false)
	if err != nil || got.Content != "hi"+route || got.File != "" {
		t.Errorf("small message: %+v %v", got, err)
	}
	for _, bad := range []Message{{Channel: "nosuch"}, {Channel: "notadir"}, {Channel: ".."}, {Channel: "a/b"},
		{Channel: "telegram", Endpoint: "../x"}, {Channel: "telegram", Endpoint: "a b"}} {
		if _, err := in.Accept(bad, false); !errors.Is(err, ErrIntake) {
			t.Errorf("%+v accepted: %v", bad, err)
		}
	}
	if got, err := in.Accept(Message{Channel: "nosuch", Content: "x"}, true); err != nil || got.Content != "x" {
		t.Errorf("no-reply skips the channel check and the route: %+v %v", got, err)
	}
	big := strings.Repeat("é", 1000) // 2000 bytes
	got, err = in.Accept(Message{Channel: "telegram", Endpoint: "42", Content: big}, false)
	if err != nil {
		t.Fatal(err)
	}
	wantFile := filepath.Join(in.AttachmentsDir, fmt.Sprintf("1773570600123-%d", os.Getpid()), "message.txt")
	if got.File != wantFile {
		t.Errorf("file %q, want %q", got.File, wantFile)
	}
	if data, _ := os.ReadFile(wantFile); string(data) != big+route {
		t.Errorf("attachment does not hold the full message")
	}
	size := len(big + route)
	want := strings.Repeat("é", 100) + "...\n\n[C4] Full message (" + fmt.Sprintf("%.1f", float64(size)/1024) + "KB) at: " + wantFile + route
	if got.Content != want {
		t.Errorf("preview:\n%q\nwant\n%q", got.Content, want)
	}
}

// TestIntakeAcceptAsGiven: zylos v0.7.1's intake stores the message as
// given (no route, no attachment whatever its size), drops the endpoint of
// a message that expects no reply, accepts its endpoint ids (`|msg:`) but
// none that would break out of the route's quotes, and answers
// `[C4] Message queued (id=N)`.
func TestIntakeAcceptAsGiven(t *testing.T) {
	dir := t.TempDir()
	in := Intake{SkillsDir: filepath.Join(dir, "skills"), AttachmentsDir: filepath.Join(dir, "attachments"),
		Now: time.Now, AsGiven: true}
	os.MkdirAll(filepath.Join(in.SkillsDir, "telegram"), 0o755)
	big := strings.Repeat("é", 3000)
	for _, tt := range []struct {
		m       Message
		noReply bool
		want    Message
	}{
		{Message{Channel: "telegram", Endpoint: "42", Content: "hi"}, false, Message{Channel: "telegram", Endpoint: "42", Content: "hi"}},
		{Message{Channel: "telegram", Endpoint: "42|msg:7", Content: big}, false, Message{Channel: "telegram", Endpoint: "42|msg:7", Content: big}},
		{Message{Channel: "telegram", Endpoint: "42", Content: "note"}, true, Message{Channel: "telegram", Content: "note"}},
		{Message{Channel: "nosuch", Content: "x"}, true, Message{Channel: "nosuch", Content: "x"}},
	} {
		got, err := in.Accept(tt.m, tt.noReply)
		if err != nil || got.Message != tt.want || got.File != "" {
			t.Errorf("Accept(%+.40v, %v) = %+.60v, %v", tt.m, tt.noReply, got, err)
		}
	}
	if _, err := os.Stat(in.AttachmentsDir); !os.IsNotExist(err) {
		t.Errorf("an attachment was written: %v", err)
	}
	for _, bad := range []Message{{Channel: "nosuch"}, {Channel: "../x"}, {Channel: "telegram", Endpoint: `a"b`},
		{Channel: "telegram", Endpoint: "$(id)"}, {Channel: "telegram", Endpoint: "a\nb"}, {Channel: "telegram", Endpoint: `a\`}} {
		if _, err := in.Accept(bad, false); !errors.Is(err, ErrIntake) {
			t.Errorf("%+v accepted: %v", bad, err)
		}
	}
	if got := in.Answer(5, Accepted{Message: Message{Priority: 1, RequireIdle: true}}); got != "[C4] Message queued (id=5)" {
		t.Errorf("answer %q", got)
	}
}
