package secretscan_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/secretscan"
	"github.com/zylos/zylos-memory/internal/testutil"
)

// entries1000 are 1,000 reference entries of about 300 bytes, worded as
// decisions are, a fifth of them naming keys and tokens (which wakes
// gitleaks' generic rule) without holding one.
func entries1000() []secretscan.Item {
	topics := []string{"ledger", "billing", "search index", "auth gateway", "kafka consumer"}
	items := make([]secretscan.Item, 1000)
	for i := range items {
		topic := topics[i%len(topics)]
		text := fmt.Sprintf("## Decision %d: %s retries\n\nWe retry the %s three times with backoff "+
			"(250 ms, 1 s, 4 s) before paging; request 3f2b8c1e-9a4d-4e7b-8c2a-%012d failed twice in "+
			"the incident of March, fixed in commit 9fceb02d0ae598e95dc970b74767f1937%07d.\n", i, topic, topic, i, i)
		if i%5 == 0 {
			text += "The api token and the signing key stay in vault; nothing here holds one.\n"
		}
		items[i] = secretscan.Item{ID: fmt.Sprint("decision-", i), Text: text}
	}
	return items
}

// BenchmarkScan1000Entries: one Scan of 1,000 entries, one run of the
// scanner (start, rules, scan, answer). cpu-ms/op is the scanner's CPU.
func BenchmarkScan1000Entries(b *testing.B) {
	exe := scanner(b)
	items := entries1000()
	size := 0
	for _, it := range items {
		size += len(it.Text)
	}
	b.SetBytes(int64(size))
	cpu := testutil.StartChildCPU(b)
	for b.Loop() {
		found, err := secretscan.Scan(context.Background(), exe, items)
		if err != nil || len(found) != 0 {
			b.Fatalf("%v, %v", found, err)
		}
	}
	cpu.Report()
}

// BenchmarkScannerStart: what any scan pays once, the scanner's start and
// its rules' load, with nothing to scan.
func BenchmarkScannerStart(b *testing.B) {
	exe := scanner(b)
	items := []secretscan.Item{{ID: "empty", Text: ""}}
	cpu := testutil.StartChildCPU(b)
	for b.Loop() {
		if _, err := secretscan.Scan(context.Background(), exe, items); err != nil {
			b.Fatal(err)
		}
	}
	cpu.Report()
}

// BenchmarkScannerVersion: the scanner's start alone (package inits, no
// rules loaded).
func BenchmarkScannerVersion(b *testing.B) {
	exe := scanner(b)
	cpu := testutil.StartChildCPU(b)
	for b.Loop() {
		if out, err := exec.Command(exe, "--version").Output(); err != nil || !strings.Contains(string(out), "protocol") {
			b.Fatalf("%s, %v", out, err)
		}
	}
	cpu.Report()
}
