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
	q.eachCandidateLine(text.String(), func(at int, line string, _ int) {
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

// FuzzCandidateLines holds the pre-filter to its promises: every index
// line the full scoring accepts is a candidate, and scores no more than
// maxTokenPoints per token the pre-filter counted in it.
func FuzzCandidateLines(f *testing.F) {
	f.Add("- [DECISION] Use Kafka -> decisions/a.json #tags:QUEUE", "kafka queues")
	f.Add("- [DECISION] \u212aafka -> decisions/a.json", "kafka")
	f.Add("- [RUNBOOK] Deploy STAGING -> runbooks/d.json\n- [RUNBOOK] x -> r.json #tags:deploy", "deployments to staging")
	f.Fuzz(func(t *testing.T, text, prompt string) {
		q := newQuery(Tokenize(prompt))
		candidates := map[int]int{} // offset -> tokens held, plus one
		q.eachCandidateLine(text, func(at int, _ string, tokens int) { candidates[at] = tokens + 1 })
		records.EachIndexLine(text, func(at int, l records.IndexLine) {
			line, _, _ := strings.Cut(text[at:], "\n")
			score := q.score(l.Title, l.AppendTags(nil))
			switch held := candidates[at] - 1; {
			case score > 0 && held < 0:
				t.Errorf("line %q scores but is not a candidate", line)
			case score > held*maxTokenPoints && held >= 0:
				t.Errorf("line %q scores %d with %d tokens counted", line, score, held)
			}
		})
	})
}
