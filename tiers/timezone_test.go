package tiers

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestEnvFileValue(t *testing.T) {
	tests := []struct {
		name, file, want string
	}{
		{"plain", "TZ=Asia/Shanghai\n", "Asia/Shanghai"},
		{"double quoted", `TZ="America/New_York"`, "America/New_York"},
		{"single quoted", "TZ='Europe/Berlin'", "Europe/Berlin"},
		{"export", "export TZ=UTC", "UTC"},
		{"comment", "TZ=UTC # server zone", "UTC"},
		{"last wins", "TZ=UTC\nTZ=Asia/Tokyo", "Asia/Tokyo"},
		{"other keys", "FOO=bar\n# TZ=UTC\n", ""},
		{"crlf", "TZ=UTC\r\n", "UTC"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := envFileValue([]byte(tt.file), "TZ"); got != tt.want {
				t.Errorf("envFileValue(%q) = %q, want %q", tt.file, got, tt.want)
			}
		})
	}
}

func TestLocationPrecedence(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".env"), []byte("TZ=Asia/Tokyo\n"), 0o644)
	if loc, _ := (Layout{ZylosDir: dir, TZ: "Europe/Berlin"}).Location(); loc.String() != "Europe/Berlin" {
		t.Errorf("with TZ env: %v, want Europe/Berlin", loc)
	}
	l := Layout{ZylosDir: dir}
	if loc, _ := l.Location(); loc.String() != "Asia/Tokyo" {
		t.Errorf("from .env: %v, want Asia/Tokyo", loc)
	}
	os.Remove(filepath.Join(dir, ".env"))
	if loc, _ := l.Location(); loc != time.Local {
		t.Errorf("fallback: %v, want Local", loc)
	}
	if _, err := (Layout{ZylosDir: dir, TZ: "Not/AZone"}).Location(); err == nil {
		t.Error("invalid TZ accepted")
	}
}
