package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeCodeMCPTools runs a session in a home made by init, where the
// model calls the memory's MCP tools as Claude Code names them: a search
// whose result carries the memory, then a save that lands as a record and
// as its markdown entry.
func TestClaudeCodeMCPTools(t *testing.T) {
	bin := client(t)
	zylos, userHome := home(t)
	script := []reply{
		{tool: "mcp__zylos-memory__memory_search", input: map[string]any{"query": "sqlite database"}},
		{tool: "mcp__zylos-memory__memory_save", input: map[string]any{
			"category": "decision", "title": "Use cron for schedules", "tags": []string{"scheduler"},
			"content": map[string]any{"decision": "robfig/cron", "context": "daily rotation and weekly consolidation",
				"rationale": []string{"simpler than a loop"}, "status": "accepted"}}},
		{text: "We use SQLite for the conversation log, and I saved the cron decision."},
	}
	api := startStandIn(t, script)
	out, debug, took := runClient(t, bin, zylos, userHome, api.url, "What database do we use? Also remember that we use cron for schedules.")
	t.Logf("session took %v; result: %s", took, tail(out, 300))
	bodies := api.mainBodies()
	if len(bodies) < 3 {
		t.Fatalf("%d requests of the agent loop, want at least 3; debug:\n%s", len(bodies), tail(debug, 3000))
	}
	// Claude Code offers MCP tools by name (their schemas come through its
	// tool search), so the names are what the first request carries.
	for _, tool := range []string{"memory_search", "memory_read", "memory_save", "memory_history", "memory_status"} {
		if !strings.Contains(bodies[0], "mcp__zylos-memory__"+tool) {
			t.Errorf("the first request does not offer mcp__zylos-memory__%s", tool)
		}
	}
	// The search's result, sent back with the next request, carries the
	// memory with its citation.
	if !strings.Contains(bodies[1], "memory/reference/decisions.md:3") || !strings.Contains(bodies[1], "Use SQLite for the conversation log") {
		t.Errorf("the search result does not carry the memory:\n%s", tail(bodies[1], 3000))
	}
	// The save's result says created, and the record landed with its entry.
	if !strings.Contains(bodies[2], `\"status\": \"created\"`) || !strings.Contains(bodies[2], "use-cron-for-schedules") {
		t.Errorf("the save result does not say created:\n%s", tail(bodies[2], 3000))
	}
	record := filepath.Join(zylos, "memory", "records", "decisions", "use-cron-for-schedules.json")
	if data, err := os.ReadFile(record); err != nil || !strings.Contains(string(data), "robfig/cron") {
		t.Errorf("the record did not land: %v %s", err, data)
	}
	md, _ := os.ReadFile(filepath.Join(zylos, "memory", "reference", "decisions.md"))
	if !strings.Contains(string(md), "Use cron for schedules\n<!-- id: use-cron-for-schedules -->\n- **Decision:** robfig/cron") {
		t.Errorf("the markdown entry did not land:\n%s", md)
	}
}
