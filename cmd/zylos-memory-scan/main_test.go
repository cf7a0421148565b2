package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/secretscan/fakecred"
)

func runScan(args []string, stdin string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestVersionNamesTheProtocol(t *testing.T) {
	code, out, _ := runScan([]string{"--version"}, "")
	if code != 0 || !strings.HasPrefix(out, "zylos-memory-scan protocol 1 (gitleaks ") {
		t.Fatalf("exit %d, %q", code, out)
	}
}

func TestHelp(t *testing.T) {
	code, out, _ := runScan([]string{"--help"}, "")
	if code != 0 || !strings.Contains(out, "Usage: zylos-memory-scan < request.json") || !strings.Contains(out, "-version") {
		t.Fatalf("exit %d, %q", code, out)
	}
}

func TestAnswersARequest(t *testing.T) {
	pat := fakecred.New(1).GitHubPAT()
	code, out, errOut := runScan(nil, `{"protocol":1,"texts":["nothing here","line one\n`+pat+`"]}`)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, `"findings":[{"item":1,"rule":"github-pat","line":2}]`) || strings.Contains(out, pat) {
		t.Fatalf("answer %s", out)
	}
}

// Bad input: exit 2, one line on stderr saying why, nothing on stdout.
func TestRefusesBadInput(t *testing.T) {
	for name, tc := range map[string]struct {
		args  []string
		stdin string
		want  string
	}{
		"not JSON":       {nil, "hello", "bad request: not the expected JSON"},
		"other protocol": {nil, `{"protocol":9,"texts":[]}`, "the request speaks protocol 9, this scanner speaks 1"},
		"an argument":    {[]string{"notes.md"}, "", `unexpected argument "notes.md"`},
		"unknown flag":   {[]string{"--fast"}, "", "flag provided but not defined: -fast"},
	} {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runScan(tc.args, tc.stdin)
			if code != 2 || out != "" || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, errOut, tc.want)
			}
			if strings.Count(errOut, "\n") != 1 {
				t.Errorf("stderr is not one line: %q", errOut)
			}
		})
	}
}
