package triage

import (
	"encoding/json"
	"strings"

	"github.com/zylos/zylos-memory/internal/lazy"
)

// Code is stripped before scoring: keywords inside code ("error",
// "TODO") are not decisions the agent made.
var (
	fencedCode = lazy.Regexp("(?s)```.*?```")
	inlineCode = lazy.Regexp("`[^`\n]*`")
)

func stripCode(s string) string {
	return inlineCode().ReplaceAllString(fencedCode().ReplaceAllString(s, ""), "")
}

// activity is what the session did, the input of the SESSION_SUMMARY score.
type activity struct {
	ToolUses      int
	DistinctTools int
	Exchanges     int
}

// block is one element of a list-valued content.
type block struct {
	Type string `json:"type"`
	Text string `json:"text"`
	Name string `json:"name"`
}

// digest turns transcript messages into the lines the text categories are
// scored on (code stripped) and the activity metrics.
func digest(msgs []message) ([]string, activity) {
	var text strings.Builder
	var act activity
	tools := map[string]bool{}
	countTool := func(name string) {
		act.ToolUses++
		tools[name] = true
	}
	for _, m := range msgs {
		content := m.Content
		if m.Message != nil && len(m.Message.Content) > 0 {
			content = m.Message.Content
		}
		switch m.Type {
		case "tool_use":
			countTool(m.Name)
			continue
		case "human", "user", "assistant":
		default:
			continue
		}
		// A message that carries only tool calls or tool results is no
		// exchange: counting them would make every busy stop a summary.
		texts := contentText(content, countTool)
		if len(texts) > 0 {
			act.Exchanges++
		}
		for _, s := range texts {
			text.WriteString(s)
			text.WriteByte('\n')
		}
	}
	act.DistinctTools = len(tools)
	return strings.Split(stripCode(text.String()), "\n"), act
}

// contentText returns the text of a message's content, a string or a list
// of blocks; tool_use blocks are reported to onTool instead.
func contentText(raw json.RawMessage, onTool func(name string)) []string {
	if len(raw) == 0 {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return nil
		}
		return []string{s}
	}
	var blocks []block
	if json.Unmarshal(raw, &blocks) != nil {
		return nil
	}
	var out []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if b.Text != "" {
				out = append(out, b.Text)
			}
		case "tool_use":
			onTool(b.Name)
		}
	}
	return out
}
