package secretscan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// fixedDetect reports a match of rule "fake-token" on every line that
// holds "TOKEN".
func fixedDetect(text string) []Match {
	var out []Match
	for i, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "TOKEN") {
			out = append(out, Match{Rule: "fake-token", Description: "a fake token", Line: i + 1})
		}
	}
	return out
}

// The request the client frames by hand is one the scanner decodes, and
// the scanner's answer is one the client accepts.
func TestRequestAndAnswerRoundTrip(t *testing.T) {
	texts := []string{"plain", "one\nTOKEN here", "<html> & \"quotes\" \x01 \xff", "TOKEN\nTOKEN"}
	var b batch
	for i, text := range texts {
		b.add(i, encodeString(text))
	}
	req := b.request()
	if len(req) != b.size() {
		t.Fatalf("request is %d bytes, size says %d", len(req), b.size())
	}
	var out bytes.Buffer
	if err := Serve(context.Background(), bytes.NewReader(req), &out, fixedDetect); err != nil {
		t.Fatal(err)
	}
	wire, rules, err := decodeAnswer(out.Bytes(), texts)
	if err != nil {
		t.Fatalf("%v in %s", err, out.Bytes())
	}
	got := fmt.Sprint(wire)
	if want := "[{1 fake-token 2} {3 fake-token 1} {3 fake-token 2}]"; got != want {
		t.Errorf("findings %s, want %s", got, want)
	}
	if rules["fake-token"] != "a fake token" || len(rules) != 1 {
		t.Errorf("rules %v", rules)
	}
}

func TestServeRefusesBadRequests(t *testing.T) {
	for name, req := range map[string]string{
		"not JSON":        "hello",
		"other protocol":  `{"protocol":2,"texts":[]}`,
		"no protocol":     `{"texts":["a"]}`,
		"unknown field":   `{"protocol":1,"texts":[],"mode":"fast"}`,
		"two values":      `{"protocol":1,"texts":[]} {}`,
		"texts not array": `{"protocol":1,"texts":"a"}`,
		"text too large":  `{"protocol":1,"texts":["` + strings.Repeat("a", MaxItemBytes+1) + `"]}`,
		"request too large": `{"protocol":1,"texts":["` + strings.Repeat("a", MaxItemBytes) + `"` +
			strings.Repeat(`,"`+strings.Repeat("a", MaxItemBytes)+`"`, 8) + `]}`,
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			err := Serve(context.Background(), strings.NewReader(req), &out, fixedDetect)
			var bad *RequestError
			if !errors.As(err, &bad) {
				t.Fatalf("got %v, want a *RequestError", err)
			}
			if strings.Contains(err.Error(), "\n") || out.Len() != 0 {
				t.Errorf("error %q (one line wanted), answer %q (none wanted)", err, out.String())
			}
		})
	}
}

func TestServeStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Serve(ctx, strings.NewReader(`{"protocol":1,"texts":["TOKEN"]}`), &bytes.Buffer{}, fixedDetect)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

// What the detector returns is cut to what an answer may hold.
func TestReportableBoundsMatches(t *testing.T) {
	var many []Match
	for i := range 40 {
		many = append(many, Match{Rule: "r", Line: i + 1})
	}
	if got := reportable(many, 100); len(got) != MaxFindingsPerItem {
		t.Errorf("%d findings, want %d", len(got), MaxFindingsPerItem)
	}
	got := reportable([]Match{
		{Rule: "r", Line: 2}, {Rule: "r", Line: 2}, // the same twice
		{Rule: "", Line: 0},                        // unnamed, before the first line
		{Rule: strings.Repeat("x", 500), Line: 99}, // too long, past the last line
	}, 3)
	want := []Match{{Rule: "r", Line: 2}, {Rule: "unnamed", Line: 1}, {Rule: strings.Repeat("x", maxRuleID), Line: 3}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

func TestDecodeAnswerRefusesWhatDoesNotFit(t *testing.T) {
	texts := []string{"one line", "two\nlines"}
	desc := `"rules":{"r":"d"}`
	for name, ans := range map[string]string{
		"not JSON":            `nonsense`,
		"empty":               ``,
		"other protocol":      `{"protocol":7,` + desc + `,"findings":[]}`,
		"unknown field":       `{"protocol":1,` + desc + `,"findings":[],"secret":"x"}`,
		"data after":          `{"protocol":1,` + desc + `,"findings":[]}garbage`,
		"item out of range":   `{"protocol":1,` + desc + `,"findings":[{"item":2,"rule":"r","line":1}]}`,
		"negative item":       `{"protocol":1,` + desc + `,"findings":[{"item":-1,"rule":"r","line":1}]}`,
		"line 0":              `{"protocol":1,` + desc + `,"findings":[{"item":0,"rule":"r","line":0}]}`,
		"line past the text":  `{"protocol":1,` + desc + `,"findings":[{"item":1,"rule":"r","line":3}]}`,
		"rule not described":  `{"protocol":1,` + desc + `,"findings":[{"item":0,"rule":"q","line":1}]}`,
		"empty rule":          `{"protocol":1,"rules":{"":"d"},"findings":[{"item":0,"rule":"","line":1}]}`,
		"rule name too long":  `{"protocol":1,"rules":{"` + strings.Repeat("r", maxRuleID+1) + `":"d"},"findings":[]}`,
		"too many findings":   `{"protocol":1,` + desc + `,"findings":[` + strings.Repeat(`{"item":0,"rule":"r","line":1},`, MaxFindingsPerItem) + `{"item":0,"rule":"r","line":1}]}`,
		"findings not a list": `{"protocol":1,` + desc + `,"findings":{}}`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, _, err := decodeAnswer([]byte(ans), texts); err == nil {
				t.Fatal("accepted")
			}
		})
	}
	if _, _, err := decodeAnswer([]byte(`{"protocol":1,"rules":{},"findings":[]}`), texts); err != nil {
		t.Fatalf("refused an answer without findings: %v", err)
	}
}

// FuzzDecodeAnswer: whatever a scanner prints, the client either refuses
// it or holds findings that each name an item, a line within it and a
// described rule, never more per item than a scanner may report.
func FuzzDecodeAnswer(f *testing.F) {
	f.Add([]byte(`{"protocol":1,"rules":{"r":"d"},"findings":[{"item":1,"rule":"r","line":2}]}`), "a\nb")
	f.Add([]byte(`{"protocol":1,"rules":{},"findings":[]}`), "")
	f.Add([]byte(`{"protocol":1,"rules":{"r":"d"},"findings":[{"item":0,"rule":"r","line":1e3}]}`), "x")
	f.Add([]byte(`{"protocol":1,"findings":null,"rules":null}`), "x")
	f.Fuzz(func(t *testing.T, data []byte, text string) {
		texts := []string{"first", text}
		wire, rules, err := decodeAnswer(data, texts)
		if err != nil {
			return
		}
		perItem := map[int]int{}
		for _, w := range wire {
			if w.Item < 0 || w.Item >= len(texts) || w.Line < 1 || w.Line > lineCount(texts[w.Item]) {
				t.Fatalf("accepted %+v for %q", w, texts)
			}
			if _, ok := rules[w.Rule]; !ok || w.Rule == "" {
				t.Fatalf("accepted rule %q not described in %v", w.Rule, rules)
			}
			if perItem[w.Item]++; perItem[w.Item] > MaxFindingsPerItem {
				t.Fatalf("accepted %d findings for item %d", perItem[w.Item], w.Item)
			}
		}
	})
}

// FuzzDecodeRequest: a request the scanner accepts holds no text over the
// bound, speaks the protocol, and reads the same once encoded again.
func FuzzDecodeRequest(f *testing.F) {
	f.Add([]byte(`{"protocol":1,"texts":["a","b\nc"]}`))
	f.Add([]byte(`{"protocol":1,"texts":null}`))
	f.Add([]byte(`{"protocol":1,"texts":["\u0000\ud800"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := decodeRequest(data)
		if err != nil {
			var bad *RequestError
			if !errors.As(err, &bad) {
				t.Fatalf("refusal %v is not a *RequestError", err)
			}
			return
		}
		if req.Protocol != Protocol {
			t.Fatalf("accepted protocol %d", req.Protocol)
		}
		var b batch
		for i, text := range req.Texts {
			if len(text) > MaxItemBytes {
				t.Fatalf("accepted a text of %d bytes", len(text))
			}
			b.add(i, encodeString(text))
		}
		again, err := decodeRequest(b.request())
		if err != nil {
			t.Fatalf("the client's framing of %q is refused: %v", req.Texts, err)
		}
		if fmt.Sprintf("%q", again.Texts) != fmt.Sprintf("%q", req.Texts) {
			t.Fatalf("texts %q came back as %q", req.Texts, again.Texts)
		}
	})
}
