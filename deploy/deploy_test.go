package deploy

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// unit is a parsed systemd unit: section -> key -> values.
type unit map[string]map[string][]string

func parseUnit(t *testing.T, path string) unit {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u := unit{}
	section := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = line[1 : len(line)-1]
			u[section] = map[string][]string{}
		default:
			key, value, ok := strings.Cut(line, "=")
			if !ok || section == "" || strings.TrimSpace(key) != key || key == "" {
				t.Fatalf("%s:%d: not a key=value line in a section: %q", path, n, line)
			}
			u[section][key] = append(u[section][key], value)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestSystemdUnit(t *testing.T) {
	u := parseUnit(t, "zylos-memory.service")
	want := map[string][]string{
		"Unit":    {"Description"},
		"Service": {"Type", "ExecStart", "ExecReload", "KillSignal", "Restart", "Environment"},
		"Install": {"WantedBy"},
	}
	for section, keys := range want {
		for _, k := range keys {
			if len(u[section][k]) != 1 {
				t.Errorf("[%s] %s: %q, want exactly one", section, k, u[section][k])
			}
		}
	}
	exec := strings.Fields(u["Service"]["ExecStart"][0])
	if len(exec) != 3 || filepath.Base(exec[0]) != "zylos-memory" || exec[1] != "scheduler" || exec[2] != "run" {
		t.Errorf("ExecStart = %q, want the binary with scheduler run", exec)
	}
	if got := u["Install"]["WantedBy"][0]; got != "default.target" {
		t.Errorf("WantedBy = %s, want default.target (a user unit)", got)
	}
}

// systemd-analyze checks the unit as systemd reads it, when it is there.
func TestSystemdAnalyzeVerify(t *testing.T) {
	bin, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed")
	}
	// The unit starts ~/.local/bin/zylos-memory: give it a home holding one.
	home := t.TempDir()
	local := filepath.Join(home, ".local", "bin")
	os.MkdirAll(local, 0o755)
	if err := os.Symlink(testutil.Binary(t), filepath.Join(local, "zylos-memory")); err != nil {
		t.Fatal(err)
	}
	runtime := filepath.Join(home, "run")
	os.Mkdir(runtime, 0o700)
	unitPath, _ := filepath.Abs("zylos-memory.service")
	cmd := exec.Command(bin, "--user", "verify", unitPath)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_RUNTIME_DIR="+runtime)
	out, err := cmd.CombinedOutput()
	if err != nil && strings.Contains(string(out), "zylos-memory.service") {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	if err != nil {
		t.Skipf("systemd-analyze cannot run here: %v\n%s", err, out)
	}
}

func TestPM2File(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	if out, err := exec.Command(node, "--check", "ecosystem.config.js").CombinedOutput(); err != nil {
		t.Fatalf("node --check: %v\n%s", err, out)
	}
	// Load it as PM2 does and check what it starts.
	script := `const c = require(process.argv[1]); const a = c.apps[0];
process.stdout.write([a.name, require('path').basename(a.script), a.args.join(' '), a.interpreter].join('|'));`
	abs, _ := filepath.Abs("ecosystem.config.js")
	out, err := exec.Command(node, "-e", script, abs).CombinedOutput()
	if err != nil {
		t.Fatalf("load ecosystem.config.js: %v\n%s", err, out)
	}
	if got, want := string(out), "zylos-memory|zylos-memory|scheduler run|none"; got != want {
		t.Errorf("PM2 app = %q, want %q", got, want)
	}
}

// Both files start `zylos-memory scheduler run`; that command must exist.
func TestDeployedCommandExists(t *testing.T) {
	res := testutil.Run{ZylosDir: filepath.Join(t.TempDir(), "zylos")}.Exec(t, "scheduler", "run", "--help")
	if res.Code != 0 || !strings.Contains(res.Stdout, "scheduler run") {
		t.Fatalf("scheduler run --help: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
}
