package recall

import (
	"strings"
	"testing"
)

func TestLowerASCII(t *testing.T) {
	tests := []struct {
		in, lower string
		ascii     bool
	}{
		{"", "", true},
		{"AZaz@[`{09 Kafka-QUEUE\n", "azaz@[`{09 kafka-queue\n", true},
		{"- [DECISION] Use KAFKA for the Queue -> decisions/a.json #tags:QUEUE,Ops", "- [decision] use kafka for the queue -> decisions/a.json #tags:queue,ops", true},
		{"École", "", false},
		{"\x00\x1f\x7f~ABCDEFGH", "\x00\x1f\x7f~abcdefgh", true},
	}
	for _, tt := range tests {
		b := []byte(tt.in)
		if ascii := lowerASCII(b); ascii != tt.ascii || ascii && string(b) != tt.lower {
			t.Errorf("lowerASCII(%q) = %q, %v; want %q, %v", tt.in, b, ascii, tt.lower, tt.ascii)
		}
	}
}

// FuzzMayMatch holds the pre-filter to its promise: every index line the
// full scoring accepts passes it.
func FuzzMayMatch(f *testing.F) {
	f.Add("- [DECISION] Use Kafka -> decisions/a.json #tags:QUEUE", "kafka queues")
	f.Add("- [DECISION] \u212aafka -> decisions/a.json", "kafka")
	f.Add("- [RUNBOOK] Deploy STAGING -> runbooks/d.json", "deployments to staging")
	f.Fuzz(func(t *testing.T, text, prompt string) {
		q := newQuery(Tokenize(prompt))
		eachIndexLine(text, func(at int, l indexLine) {
			line, _, _ := strings.Cut(text[at:], "\n")
			if q.score(l.title, l.appendTags(nil)) > 0 && !q.mayMatch(line) {
				t.Errorf("line %q scores but fails the pre-filter", line)
			}
		})
	})
}
