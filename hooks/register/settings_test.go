package register

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/hooks"
	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/tiers"
)

var regLayout = tiers.Layout{ZylosDir: "/home/u/zylos"}

var regTime = time.Date(2026, 3, 15, 10, 30, 0, 0, time.UTC)

const userSettings = `{
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo a && echo b > /dev/null"}]}
        ],
        "SessionStart": [
            {"matcher": "", "hooks": [{"type": "command", "command": "node ~/zylos/.claude/skills/comm-bridge/scripts/c4-session-init.js", "timeout": 10000}]}
        ]
    },
    "env": {"A": "1"}
}
`

func homeWithSettings(t *testing.T, content string) tiers.Layout {
	t.Helper()
	l := tiers.Layout{ZylosDir: filepath.Join(t.TempDir(), "zylos")}
	if content != "" {
		if err := os.MkdirAll(l.ClaudeDir(), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(l.SettingsFile(), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// portable replaces the temp home in a settings file so goldens are stable.
func portable(l tiers.Layout, data []byte) string {
	return strings.ReplaceAll(string(data), l.ZylosDir, "/home/u/zylos")
}

func TestRegisterMerges(t *testing.T) {
	events := []hooks.Event{hooks.SessionStart, hooks.UserPromptSubmit, hooks.Stop, hooks.PreToolUse, hooks.PostToolUse}
	tests := []struct {
		name     string
		existing string
	}{
		{"new_file", ""},
		{"empty_file", "  \n"},
		{"user_hooks_kept", userSettings},
		{"moved_binary", `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"/old/bin/zylos-memory --zylos-dir /home/u/zylos hook session-start","timeout":10}]}]}}`},
		{"duplicates_collapsed", `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"/a/zylos-memory hook user-prompt-submit"},{"type":"command","command":"echo mine"}]},{"hooks":[{"type":"command","command":"/b/zylos-memory --zylos-dir x hook user-prompt-submit"}]}]}}`},
		{"wrong_matcher_moved", `{"hooks":{"PreToolUse":[{"matcher":"Write","hooks":[{"type":"command","command":"/a/zylos-memory hook pre-tool-use","timeout":5}]}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := homeWithSettings(t, tt.existing)
			reg, err := Hooks(l, "/opt/zylos/bin/zylos-memory", events, regTime)
			if err != nil {
				t.Fatal(err)
			}
			if !reg.Changed {
				t.Fatal("first registration reported no change")
			}
			got, err := os.ReadFile(l.SettingsFile())
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, filepath.Join("testdata", "settings_"+tt.name+".golden"), []byte(portable(l, got)))
			if tt.existing != "" {
				old, err := os.ReadFile(reg.Backup)
				if err != nil || string(old) != tt.existing {
					t.Errorf("backup %q = %q, %v; want the previous file", reg.Backup, old, err)
				}
			}

			again, err := Hooks(l, "/opt/zylos/bin/zylos-memory", events, regTime)
			if err != nil || again.Changed || again.Backup != "" {
				t.Errorf("re-run: %+v, %v; want no change", again, err)
			}
			if after, _ := os.ReadFile(l.SettingsFile()); string(after) != string(got) {
				t.Error("re-run rewrote the file")
			}
		})
	}
}

func TestRegisterLeavesMalformedUntouched(t *testing.T) {
	for name, content := range map[string]string{
		"not_json":         `{"hooks": {`,
		"array":            `[]`,
		"hooks_not_object": `{"hooks": []}`,
		"event_not_array":  `{"hooks": {"SessionStart": {"hooks": []}}}`,
		"group_not_object": `{"hooks": {"SessionStart": ["x"]}}`,
		"trailing_data":    `{} {}`,
		"duplicate_hooks":  `{"hooks": {}, "hooks": {}}`,
	} {
		t.Run(name, func(t *testing.T) {
			l := homeWithSettings(t, content)
			_, err := Hooks(l, "/bin/zylos-memory", []hooks.Event{hooks.SessionStart}, regTime)
			var malformed *MalformedError
			if !errors.As(err, &malformed) {
				t.Fatalf("err = %v, want MalformedError", err)
			}
			if got, _ := os.ReadFile(l.SettingsFile()); string(got) != content {
				t.Errorf("file changed to %q", got)
			}
			if matches, _ := filepath.Glob(l.SettingsFile() + ".bak-*"); len(matches) != 0 {
				t.Errorf("backups written: %v", matches)
			}
		})
	}
}

func TestRegisterBackupsNeverOverwrite(t *testing.T) {
	l := homeWithSettings(t, `{}`)
	if _, err := Hooks(l, "/a/zylos-memory", []hooks.Event{hooks.SessionStart}, regTime); err != nil {
		t.Fatal(err)
	}
	reg, err := Hooks(l, "/b/zylos-memory", []hooks.Event{hooks.SessionStart}, regTime)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(reg.Backup, ".bak-20260315T103000Z-1") {
		t.Errorf("second backup = %q, want a -1 suffix", reg.Backup)
	}
}

func TestRegisterWritesThroughASymlink(t *testing.T) {
	l := homeWithSettings(t, "")
	real := filepath.Join(t.TempDir(), "dotfiles-settings.json")
	os.WriteFile(real, []byte(`{"env":{}}`), 0o644)
	os.MkdirAll(l.ClaudeDir(), 0o755)
	if err := os.Symlink(real, l.SettingsFile()); err != nil {
		t.Fatal(err)
	}
	if _, err := Hooks(l, "/bin/zylos-memory", []hooks.Event{hooks.SessionStart}, regTime); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(l.SettingsFile()); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", st, err)
	}
	if data, _ := os.ReadFile(real); !strings.Contains(string(data), "hook session-start") {
		t.Errorf("the linked file was not updated:\n%s", data)
	}
}

func TestCommandQuoting(t *testing.T) {
	got := hooks.Command("/opt/my apps/zylos-memory", "/home/o'neil/zylos", hooks.SessionStart)
	want := `'/opt/my apps/zylos-memory' --zylos-dir '/home/o'\''neil/zylos' hook session-start`
	if got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	if !isOwn(got, hooks.SessionStart) || isOwn(got, hooks.UserPromptSubmit) {
		t.Error("quoted command not recognised as our own")
	}
	if b := (Entry{Command: got}).Binary(); b != "/opt/my apps/zylos-memory" || (Entry{Command: hooks.Command("/b/zm", "/z", hooks.Stop)}).Binary() != "/b/zm" {
		t.Errorf("Binary of %s = %q", got, b)
	}
	if !(Entry{Command: got}).ForHome("/home/o'neil/zylos") || (Entry{Command: got}).ForHome("/home/o") {
		t.Errorf("ForHome of %s", got)
	}
	for cmd, want := range map[string]bool{
		"/usr/local/bin/zm --zylos-dir /z hook stop": true, // renamed binary
		"/old/zylos-memory hook stop":                true,
		"echo hook stop":                             false,
		"/old/zylos-memory hook stop-other":          false,
	} {
		if isOwn(cmd, hooks.Stop) != want {
			t.Errorf("isOwn(%q) = %v, want %v", cmd, !want, want)
		}
	}
}
