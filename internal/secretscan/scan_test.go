package secretscan_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/secretscan"
	"github.com/zylos/zylos-memory/internal/secretscan/fakecred"
	"github.com/zylos/zylos-memory/internal/testutil"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// scanner is the real zylos-memory-scan, found beside zylos-memory as
// zylos-memory finds it.
func scanner(tb testing.TB) string {
	tb.Helper()
	exe, err := secretscan.Binary(testutil.ScanBinary(tb))
	if err != nil {
		tb.Fatal(err)
	}
	return exe
}

func scan(tb testing.TB, exe string, items []secretscan.Item) []secretscan.Finding {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	found, err := secretscan.Scan(ctx, exe, items)
	if err != nil {
		tb.Fatal(err)
	}
	return found
}

// credentialItems are entries as an agent might write them, each holding
// a live-looking credential, and the secrets in them.
func credentialItems() ([]secretscan.Item, []string) {
	m := fakecred.New(7)
	pat, slack, pem := m.GitHubPAT(), m.SlackBotToken(), m.PrivateKeyPEM()
	keyID, secretKey := m.AWSAccessKeyID(), m.AWSSecretAccessKey()
	allowed := m.GitHubPAT()
	encoded := base64.StdEncoding.EncodeToString([]byte("token=" + m.GitHubPAT()))
	items := []secretscan.Item{
		{ID: "pat", Text: "## CI\nThe release job pushes with " + pat + " until it is rotated.\n"},
		{ID: "slack", Text: "Alerts bot\n\nThe bot posts to #ops with " + slack + "\n"},
		{ID: "pem", Text: "Staging TLS key, kept here while the vault is down:\n" + pem},
		{ID: "aws", Text: "aws_access_key_id = " + keyID + "\naws_secret_access_key = " + secretKey + "\n"},
		{ID: "allowed", Text: "copied from the fixtures: " + allowed + " # gitleaks:allow"},
		{ID: "encoded", Text: "The webhook header carries\n" + encoded + "\n"},
	}
	return items, []string{pat, slack, pem, keyID, secretKey, allowed, encoded}
}

func TestScanFindsCredentials(t *testing.T) {
	items, secrets := credentialItems()
	found := scan(t, scanner(t), items)
	got := map[string]bool{}
	for _, f := range found {
		got[fmt.Sprintf("%s %s %d", f.ID, f.Rule, f.Line)] = true
		if f.Description == "" {
			t.Errorf("%+v: no description", f)
		}
		for _, s := range secrets {
			if strings.Contains(fmt.Sprint(f), s) {
				t.Errorf("%+v holds a secret", f)
			}
		}
	}
	for _, want := range []string{
		"pat github-pat 2",
		"slack slack-bot-token 3",
		"pem private-key 2",
		"aws aws-access-token 1",
		"aws generic-api-key 2", // the secret access key, by its name and entropy
		"allowed github-pat 1",  // gitleaks:allow does not hold once copied into memory
		"encoded github-pat 2",  // found in its base64 encoding
	} {
		if !got[want] {
			t.Errorf("no finding %q in %v", want, found)
		}
	}
	for i := 1; i < len(found); i++ {
		if order(items, found[i].ID) < order(items, found[i-1].ID) {
			t.Errorf("findings out of the items' order: %v", found)
		}
	}
}

func order(items []secretscan.Item, id string) int {
	for i, it := range items {
		if it.ID == id {
			return i
		}
	}
	return -1
}

// What must not stop an entry from being shared: prose about keys and
// tokens, and the identifiers and hashes memory is full of.
func TestScanPassesOrdinaryText(t *testing.T) {
	items := []secretscan.Item{
		{ID: "decision", Text: "## Use PostgreSQL 16 for the ledger\n\nWe chose logical replication over " +
			"triggers. The API keys are rotated by vault every 30 days; nobody keeps a token in the repo.\n" +
			"- why: the old auth service could not scale past 2k rps\n"},
		{ID: "uuid", Text: "The request 3f2b8c1e-9a4d-4e7b-8c2a-1d5e6f7a8b9c failed with a 502 from the gateway."},
		{ID: "sha", Text: "Fixed in commit 9fceb02d0ae598e95dc970b74767f19372d61af8 (see the changelog)."},
		{ID: "sha256", Text: "Release tarball sha256: 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"},
		{ID: "empty", Text: ""},
	}
	if found := scan(t, scanner(t), items); len(found) != 0 {
		t.Errorf("findings in ordinary text: %+v", found)
	}
}

// The scanner's output, whole, never holds a secret: not on stdout, not
// on stderr.
func TestScannerOutputHoldsNoSecret(t *testing.T) {
	items, secrets := credentialItems()
	texts := make([]string, len(items))
	for i, it := range items {
		texts[i] = strconv.Quote(it.Text)
	}
	cmd := exec.Command(scanner(t))
	cmd.Stdin = strings.NewReader(`{"protocol":1,"texts":[` + strings.Join(texts, ",") + `]}`)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), `"findings":[{`) {
		t.Fatalf("no findings in %s", stdout.String())
	}
	for _, s := range secrets {
		for _, part := range []string{s, s[:len(s)/2], s[len(s)/2:]} {
			if strings.Contains(stdout.String()+stderr.String(), part) {
				t.Errorf("output holds part of a secret %q:\n%s\n%s", part, stdout.String(), stderr.String())
			}
		}
	}
}

// An item too large to scan is reported without asking the scanner, so
// that it stays local; the others are scanned as usual.
func TestScanReportsTooLargeItems(t *testing.T) {
	pat := fakecred.New(3).GitHubPAT()
	found := scan(t, scanner(t), []secretscan.Item{
		{ID: "big", Text: strings.Repeat("x", secretscan.MaxItemBytes+1)},
		{ID: "pat", Text: pat},
	})
	if len(found) != 2 || found[0].ID != "big" || found[0].Rule != secretscan.RuleTooLarge || found[0].Line != 0 ||
		found[1].ID != "pat" || found[1].Rule != "github-pat" {
		t.Fatalf("got %+v", found)
	}
}

// A set larger than one request goes in several runs, each finding named
// by its own item.
func TestScanSplitsLargeSets(t *testing.T) {
	pat := fakecred.New(5).GitHubPAT()
	filler := strings.Repeat("The ledger holds one row per posting, written once, read often.\n", secretscan.MaxItemBytes/64)
	var items []secretscan.Item
	for i := range 9 {
		items = append(items, secretscan.Item{ID: fmt.Sprint("entry-", i), Text: filler})
	}
	items[8].Text = filler[:len(filler)-200] + "\ntoken " + pat + "\n"
	found := scan(t, scanner(t), items)
	want := fmt.Sprintf("[{entry-8 github-pat %d", strings.Count(items[8].Text, "\n"))
	if got := fmt.Sprint(found); !strings.HasPrefix(got, want) || len(found) != 1 {
		t.Fatalf("got %s, want %s …}]", got, want)
	}

	runs := filepath.Join(t.TempDir(), "runs")
	counter := fakeScanner(t, `echo run >> '`+runs+`'; cat >/dev/null; echo '{"protocol":1,"rules":{},"findings":[]}'`)
	scan(t, counter, items)
	if data, _ := os.ReadFile(runs); strings.Count(string(data), "run") != 2 {
		t.Errorf("%d runs of the scanner for 9 items of 1 MiB, want 2", strings.Count(string(data), "run"))
	}
}

func TestScanWithoutItemsRunsNothing(t *testing.T) {
	found, err := secretscan.Scan(context.Background(), filepath.Join(t.TempDir(), "absent"), nil)
	if err != nil || found != nil {
		t.Fatalf("got %v, %v", found, err)
	}
}

// fakeScanner is an executable shell script standing in for the scanner.
func fakeScanner(tb testing.TB, body string) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), secretscan.ScannerName)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		tb.Fatal(err)
	}
	return path
}

// Every way the scanner can fail is an error, and a prompt one: the
// caller then shares nothing.
func TestScanFailsClosed(t *testing.T) {
	items := []secretscan.Item{{ID: "a", Text: "hello"}}
	for _, tc := range []struct {
		name, script, want string
	}{
		{"exits non-zero", `cat >/dev/null; echo 'zylos-memory-scan: cannot load rules' >&2; exit 3`,
			"failed (exit status 3): zylos-memory-scan: cannot load rules"},
		{"killed", `kill -9 $$`, "failed (signal: killed): no message on stderr"},
		{"prints garbage", `cat >/dev/null; echo 'hello there'`, "answered nonsense: not the expected JSON"},
		{"prints nothing", `cat >/dev/null`, "answered nonsense: not the expected JSON"},
		{"speaks another protocol", `echo '{"protocol":2,"rules":{},"findings":[]}'`,
			"answered nonsense: it speaks protocol 2, this zylos-memory speaks 1"},
		{"names an item not sent", `echo '{"protocol":1,"rules":{"r":"d"},"findings":[{"item":1,"rule":"r","line":1}]}'`,
			"answered nonsense: a finding names item 1 of 1"},
		{"answers without end", `exec yes`, "answered over"},
		{"leaves a child holding its output", `sleep 30 & echo $! > "$0.pid"; exit 0`, "WaitDelay"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exe := fakeScanner(t, tc.script)
			t.Cleanup(func() { killRecorded(exe + ".pid") })
			start := time.Now()
			found, err := secretscan.Scan(context.Background(), exe, items)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, %v; want an error with %q", found, err, tc.want)
			}
			if !strings.Contains(err.Error(), exe) {
				t.Errorf("error %q does not name the scanner", err)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// killRecorded kills the process whose id a fake scanner left in path.
func killRecorded(path string) {
	if data, err := os.ReadFile(path); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// A scanner that never answers is killed when ctx ends, and Scan returns
// at once with ctx's error.
func TestScanKillsTheScannerWhenCancelled(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	exe := fakeScanner(t, `echo $$ > '`+pidFile+`'; exec sleep 60`)
	t.Cleanup(func() { killRecorded(pidFile) })
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := secretscan.Scan(ctx, exe, []secretscan.Item{{ID: "a", Text: "hello"}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("returned after %v", d)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("scanner %d still there: %v", pid, err)
	}
}

func TestBinary(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "zylos-memory")
	beside := filepath.Join(dir, secretscan.ScannerName)

	_, err := secretscan.Binary(self)
	if err == nil || !strings.Contains(err.Error(), beside) || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing: got %v", err)
	}
	if err := os.WriteFile(beside, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := secretscan.Binary(self); err == nil || !strings.Contains(err.Error(), "not an executable file") {
		t.Errorf("not executable: got %v", err)
	}
	if err := os.Chmod(beside, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := secretscan.Binary(self); err != nil || got != beside {
		t.Errorf("executable: got %q, %v", got, err)
	}
	os.Remove(beside)
	if err := os.Mkdir(beside, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := secretscan.Binary(self); err == nil || !strings.Contains(err.Error(), "not an executable file") {
		t.Errorf("a directory: got %v", err)
	}
}
