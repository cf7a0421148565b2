package secretscan

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Protocol is the version of the wire both sides speak. Any change to the
// request or the answer, even a field added, takes a new version: each
// side decodes strictly and refuses what it does not know.
const Protocol = 1

const (
	// MaxItemBytes bounds one text. The client sends none larger (such an
	// item comes back as a RuleTooLarge finding, so that it stays local)
	// and the scanner refuses one.
	MaxItemBytes = 1 << 20
	// MaxRequestBytes bounds one request as sent: the client splits a
	// larger set over several runs of the scanner, and the scanner reads
	// no more. An item of MaxItemBytes fits even when every byte of it
	// is escaped.
	MaxRequestBytes = 8 << 20
	// MaxFindingsPerItem bounds what the scanner reports of one text:
	// one finding is enough to keep it local, a few more say where to
	// look, thousands would only swell the answer.
	MaxFindingsPerItem = 16
	// maxRuleID and maxDescription bound the names an answer may carry.
	maxRuleID      = 128
	maxDescription = 1024
)

// RuleTooLarge is the rule of the finding Scan reports, without asking
// the scanner, for an item over MaxItemBytes: what cannot be scanned is
// not shared.
const RuleTooLarge = "zylos-too-large-to-scan"

// Match is one finding of the detector in one text: the rule, its
// description and the line (1-based) where the match starts.
type Match struct {
	Rule        string
	Description string
	Line        int
}

// RequestError is a request the scanner refuses: it does not parse, is
// too large, or speaks another protocol. The scanner exits 2 on it.
type RequestError struct{ Reason string }

func (e *RequestError) Error() string { return "bad request: " + e.Reason }

type request struct {
	Protocol int      `json:"protocol"`
	Texts    []string `json:"texts"`
}

type answer struct {
	Protocol int               `json:"protocol"`
	Rules    map[string]string `json:"rules"`
	Findings []wireFinding     `json:"findings"`
}

type wireFinding struct {
	Item int    `json:"item"`
	Rule string `json:"rule"`
	Line int    `json:"line"`
}

// Serve is the scanner's side: it reads one request from in, runs detect
// over each text, writes the answer to out. Bad input is a *RequestError.
// detect must not return the secret in any field; Serve passes on only
// the rule, its description and the line.
func Serve(ctx context.Context, in io.Reader, out io.Writer, detect func(text string) []Match) error {
	data, err := io.ReadAll(io.LimitReader(in, MaxRequestBytes+1))
	if err != nil {
		return fmt.Errorf("read request: %w", err)
	}
	req, err := decodeRequest(data)
	if err != nil {
		return err
	}
	ans := answer{Protocol: Protocol, Rules: map[string]string{}, Findings: []wireFinding{}}
	for i, text := range req.Texts {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, m := range reportable(detect(text), lineCount(text)) {
			if _, ok := ans.Rules[m.Rule]; !ok {
				ans.Rules[m.Rule] = m.Description
			}
			ans.Findings = append(ans.Findings, wireFinding{Item: i, Rule: m.Rule, Line: m.Line})
		}
	}
	return encode(out, ans)
}

// reportable is what the answer may carry of one text's matches: one per
// rule and line, at most MaxFindingsPerItem, names bounded, each line
// within the text.
func reportable(matches []Match, lines int) []Match {
	type key struct {
		rule string
		line int
	}
	seen := map[key]bool{}
	var out []Match
	for _, m := range matches {
		if len(out) == MaxFindingsPerItem {
			break
		}
		m.Rule = clip(m.Rule, maxRuleID)
		m.Description = clip(m.Description, maxDescription)
		if m.Rule == "" {
			m.Rule = "unnamed"
		}
		m.Line = min(max(m.Line, 1), lines)
		if k := (key{m.Rule, m.Line}); !seen[k] {
			seen[k] = true
			out = append(out, m)
		}
	}
	return out
}

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// lineCount is how many lines text has, as the detector numbers them.
func lineCount(text string) int { return strings.Count(text, "\n") + 1 }

func decodeRequest(data []byte) (request, error) {
	var req request
	if len(data) > MaxRequestBytes {
		return req, &RequestError{fmt.Sprintf("over %d bytes", MaxRequestBytes)}
	}
	if err := decodeStrict(data, &req); err != nil {
		return req, &RequestError{err.Error()}
	}
	if req.Protocol != Protocol {
		return req, &RequestError{fmt.Sprintf("the request speaks protocol %d, this scanner speaks %d; install zylos-memory and zylos-memory-scan from one build", req.Protocol, Protocol)}
	}
	for i, text := range req.Texts {
		if len(text) > MaxItemBytes {
			return req, &RequestError{fmt.Sprintf("text %d is %d bytes, over %d", i, len(text), MaxItemBytes)}
		}
	}
	return req, nil
}

// decodeAnswer checks an answer against the texts it answers: every
// finding names one of them, a line within it, and a rule the answer
// describes; no text has more findings than the scanner may report.
func decodeAnswer(data []byte, texts []string) ([]wireFinding, map[string]string, error) {
	var ans answer
	if err := decodeStrict(data, &ans); err != nil {
		return nil, nil, err
	}
	if ans.Protocol != Protocol {
		return nil, nil, fmt.Errorf("it speaks protocol %d, this zylos-memory speaks %d; install both from one build", ans.Protocol, Protocol)
	}
	for rule, desc := range ans.Rules {
		if rule == "" || len(rule) > maxRuleID || len(desc) > maxDescription {
			return nil, nil, fmt.Errorf("a rule named %q or its description is out of bounds", clip(rule, maxRuleID))
		}
	}
	perItem := map[int]int{}
	for _, f := range ans.Findings {
		if f.Item < 0 || f.Item >= len(texts) {
			return nil, nil, fmt.Errorf("a finding names item %d of %d", f.Item, len(texts))
		}
		if f.Line < 1 || f.Line > lineCount(texts[f.Item]) {
			return nil, nil, fmt.Errorf("a finding names line %d of item %d, which has %d", f.Line, f.Item, lineCount(texts[f.Item]))
		}
		if _, ok := ans.Rules[f.Rule]; !ok {
			return nil, nil, fmt.Errorf("a finding names rule %q, which the answer does not describe", clip(f.Rule, maxRuleID))
		}
		if perItem[f.Item]++; perItem[f.Item] > MaxFindingsPerItem {
			return nil, nil, fmt.Errorf("item %d has over %d findings", f.Item, MaxFindingsPerItem)
		}
	}
	return ans.Findings, ans.Rules, nil
}

// decodeStrict decodes exactly one JSON value into v: no field v does not
// have, nothing after it.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not the expected JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("not the expected JSON: data after the value")
	}
	return nil
}

// encode writes v as one line of JSON, HTML characters as they are (the
// escapes would only lengthen it).
func encode(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write answer: %w", err)
	}
	return nil
}
