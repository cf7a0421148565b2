package records

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLoadConfig(t *testing.T) {
	tests := []struct {
		name, body string
		check      func(*Config) bool
		problems   int
	}{
		{"missing file", "", func(c *Config) bool { return c.MaxRetained("session_summary") == 5 && c.GracePeriodDays == 30 }, 0},
		{"overrides", `{"categories":{"session_summary":{"max_retained":3}},"delete":{"grace_period_days":7},"retrieval":{"max_inject":9}}`,
			func(c *Config) bool {
				return c.MaxRetained("session_summary") == 3 && c.GracePeriodDays == 7 && c.MaxInject == 9
			}, 0},
		{"unknown keys kept", `{"my_key":{"a":1}}`, func(c *Config) bool { return c.Raw["my_key"] != nil }, 0},
		{"invalid values", `{"retrieval":{"max_inject":"lots"},"delete":{"grace_period_days":-1},"triage":{"thresholds":{"decision":"x"},"parallel":{"default_model":"gpt"}}}`,
			func(c *Config) bool {
				return c.MaxInject == 5 && c.GracePeriodDays == 30 && c.Triage.DefaultModel == "haiku"
			}, 4},
		{"threshold clamp and case", `{"triage":{"thresholds":{"decision":7},"max_messages":500}}`,
			func(c *Config) bool { return c.Triage.Thresholds["DECISION"] == 1 && c.Triage.MaxMessages == 200 }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if tt.body != "" {
				os.WriteFile(filepath.Join(root, ConfigFile), []byte(tt.body), 0o644)
			}
			cfg, err := LoadConfig(root)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(cfg) || len(cfg.Problems) != tt.problems {
				t.Fatalf("config %+v problems %q", cfg, cfg.Problems)
			}
		})
	}
}

func TestResolveRootAndLocate(t *testing.T) {
	root, err := ResolveRoot("", "/p/.claude/memory/decisions/x.json", "/z/memory/records")
	if err != nil || root != "/p/.claude/memory" {
		t.Fatalf("root %q %v", root, err)
	}
	root, _ = ResolveRoot("", "memory/records/decisions/x.json", "/z/memory/records")
	if root != "/z/memory/records" {
		t.Fatalf("default root %q", root)
	}
	for _, tt := range []struct{ in, want string }{
		{"memory/records/decisions/x.json", "/z/memory/records/decisions/x.json"},
		{"decisions/x.json", "/z/memory/records/decisions/x.json"},
		{"/z/memory/records/runbooks/y.json", "/z/memory/records/runbooks/y.json"},
		{"../etc/passwd", ""},
		{"/etc/passwd", ""},
		{"memory/core.md", ""},
	} {
		got, err := Locate("/z/memory/records", "", tt.in)
		if (err != nil) != (tt.want == "") || got != tt.want {
			t.Errorf("Locate(%q) = %q, %v", tt.in, got, err)
		}
	}
}

func TestConfigOrDefaultWarns(t *testing.T) {
	root := t.TempDir()
	var warnings []string
	warn := func(s string) { warnings = append(warnings, s) }
	os.WriteFile(filepath.Join(root, ConfigFile), []byte(`{broken`), 0o644)
	if cfg := configOrDefault(root, warn); cfg.GracePeriodDays != 30 || len(warnings) != 1 {
		t.Fatalf("broken config: %+v %q", cfg, warnings)
	}
	os.WriteFile(filepath.Join(root, ConfigFile), []byte(`{"delete":{"grace_period_days":"soon"}}`), 0o644)
	if cfg := configOrDefault(root, warn); cfg.GracePeriodDays != 30 || len(warnings) != 2 {
		t.Fatalf("invalid value: %+v %q", cfg, warnings)
	}
}

func TestLocateFromWorkingDirectory(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "records")
	got, err := Locate(root, dir, "records/decisions/x.json")
	if err != nil || got != filepath.Join(root, "decisions", "x.json") {
		t.Fatalf("Locate = %q, %v", got, err)
	}
}
