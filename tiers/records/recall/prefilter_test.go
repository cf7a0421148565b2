package recall

import (
	"slices"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/tiers/records"
)

func TestLowerASCII(t *testing.T) {
	tests := []struct {
		in, lower string
		ascii     bool
	}{
		{"", "", true},
		{"AZaz@[`{09 Kafka-QUEUE\n", "azaz@[`{09 kafka-queue\n", true},
		{"- [DECISION] Use KAFKA for the Queue -> decisions/a.json #tags:QUEUE,Ops", "- [decision] use kafka for the queue -> decisions/a.json #tags:queue,ops", true},
		{"École", "École", false},
		{"ÉCOLE DE KAFKA", "École de kafka", false},
		{"\x00\x1f\x7f~ABCDEFGH", "\x00\x1f\x7f~abcdefgh", true},
	}
	for _, tt := range tests {
		b := []byte(tt.in)
		if ascii := lowerASCII(b); ascii != tt.ascii || string(b) != tt.lower {
			t.Errorf("lowerASCII(%q) = %q, %v; want %q, %v", tt.in, b, ascii, tt.lower, tt.ascii)
		}
	}
}

func TestEachCandidateLine(t *testing.T) {
	long := "- [DECISION] " + strings.Repeat("x", scanChunk) + " -> decisions/long.json"
	var text strings.Builder
	for i := range 2000 { // several chunks, so lines straddle their edges
		switch i {
		case 7:
			text.WriteString("- [DECISION] Use KAFKA -> decisions/k.json\n")
		case 700:
			text.WriteString("- [RUNBOOK] \u212aafka restart -> runbooks/r.json\n")
		case 1500:
			text.WriteString(long + "\n")
		case 1999:
			text.WriteString("- [CONSTRAINT] no trailing newline #tags:Kafka")
		default:
			text.WriteString("- [PROJECT] billing invoice worker -> projects/p.json #tags:cron\n")
		}
	}
	q := newQuery(Tokenize("kafka"))
	var got []string
	q.eachCandidateLine(text.String(), func(at int, line string) {
		if !strings.HasPrefix(text.String()[at:], line) {
			t.Errorf("offset %d does not start line %.40q", at, line)
		}
		got = append(got, line)
	})
	want := []string{"- [DECISION] Use KAFKA -> decisions/k.json", "- [RUNBOOK] \u212aafka restart -> runbooks/r.json",
		long, "- [CONSTRAINT] no trailing newline #tags:Kafka"}
	if !slices.Equal(got, want) {
		t.Errorf("candidates %q, want %q", got, want)
	}
}

// FuzzCandidateLines holds the pre-filter to its promise: every index line
// the full scoring accepts is a candidate.
func FuzzCandidateLines(f *testing.F) {
	f.Add("- [DECISION] Use Kafka -> decisions/a.json #tags:QUEUE", "kafka queues")
	f.Add("- [DECISION] \u212aafka -> decisions/a.json", "kafka")
	f.Add("- [RUNBOOK] Deploy STAGING -> runbooks/d.json\n- [RUNBOOK] x -> r.json #tags:deploy", "deployments to staging")
	f.Fuzz(func(t *testing.T, text, prompt string) {
		q := newQuery(Tokenize(prompt))
		candidates := map[int]bool{}
		q.eachCandidateLine(text, func(at int, _ string) { candidates[at] = true })
		records.EachIndexLine(text, func(at int, l records.IndexLine) {
			if q.score(l.Title, l.AppendTags(nil)) > 0 && !candidates[at] {
				line, _, _ := strings.Cut(text[at:], "\n")
				t.Errorf("line %q scores but is not a candidate", line)
			}
		})
	})
}
