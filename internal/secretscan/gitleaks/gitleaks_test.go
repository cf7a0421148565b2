package gitleaks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/secretscan"
	"github.com/zylos/zylos-memory/internal/secretscan/fakecred"
)

func newDetector(tb testing.TB) *Detector {
	tb.Helper()
	d, err := New()
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

func TestDefaultRulesLoad(t *testing.T) {
	if n := newDetector(t).Rules(); n < 150 {
		t.Fatalf("%d rules; gitleaks' default set has over 200", n)
	}
}

// Each match names its rule and the 1-based line it starts on, wherever
// it is in the text; the secret is in no field.
func TestDetectNamesRuleAndLine(t *testing.T) {
	m := fakecred.New(11)
	pat, slack, pem := m.GitHubPAT(), m.SlackBotToken(), m.PrivateKeyPEM()
	text := pat + "\n\nnotes\r\nslack: " + slack + "\n" + pem + "trailing words"
	got := newDetector(t).Detect(text)
	want := []string{"github-pat 1", "slack-bot-token 4", "private-key 5"}
	var lines []string
	for _, match := range got {
		lines = append(lines, fmt.Sprintf("%s %d", match.Rule, match.Line))
		for _, s := range []string{pat, slack, pem, pem[40:80]} {
			if strings.Contains(fmt.Sprint(match), s) {
				t.Errorf("%+v holds the secret", match)
			}
		}
		if match.Description == "" || match.Description == match.Rule {
			t.Errorf("%+v: no description of its own", match)
		}
	}
	for _, w := range want {
		if !strings.Contains(strings.Join(lines, ","), w) {
			t.Errorf("no %q in %v", w, lines)
		}
	}
}

func TestDetectIgnoresPlainText(t *testing.T) {
	for _, text := range []string{
		"",
		"We keep the API key in vault and rotate the token monthly.",
		"AKIAIOSFODNN7EXAMPLE is the documentation's sample key id.", // gitleaks' own allowlist
	} {
		if got := newDetector(t).Detect(text); len(got) != 0 {
			t.Errorf("%q: %+v", text, got)
		}
	}
}

// The detector fits what the scanner's Serve expects of it.
var _ func(string) []secretscan.Match = (*Detector)(nil).Detect

func BenchmarkDetect300Bytes(b *testing.B) {
	d := newDetector(b)
	text := strings.Repeat("Chose the ledger's replication over triggers; the api token lives in vault. ", 4)[:300]
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		d.Detect(text)
	}
}

func BenchmarkLoadRules(b *testing.B) {
	for b.Loop() {
		newDetector(b)
	}
}
