package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// reply is one scripted answer of the model: text, or one tool call.
type reply struct {
	text  string
	tool  string
	input map[string]any
	// with are more tool calls in the same message, run by the client in
	// one turn.
	with []reply
}

// standIn is a stand-in for the Messages API on the loopback address. It
// logs every request body and answers the agent loop's requests (those
// offering tools) from script, in order; any other request (a title, a
// summary) gets a short text. Answers stream as SSE when asked to, else
// come as one JSON message.
type standIn struct {
	mu     sync.Mutex
	script []reply
	bodies []string // every /v1/messages request body, in order
	main   []string // the bodies of the agent loop's requests
	srv    *http.Server
	url    string
}

func startStandIn(t *testing.T, script []reply) *standIn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &standIn{script: script, url: "http://" + ln.Addr().String()}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve)}
	go s.srv.Serve(ln)
	t.Cleanup(func() { s.srv.Close() })
	return s
}

func (s *standIn) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if !strings.HasPrefix(r.URL.Path, "/v1/messages") {
		http.NotFound(w, r)
		return
	}
	if strings.HasSuffix(r.URL.Path, "/count_tokens") {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens":100}`)
		return
	}
	var req struct {
		Stream bool              `json:"stream"`
		Tools  []json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	s.mu.Lock()
	s.bodies = append(s.bodies, string(body))
	rep := reply{text: "ok"}
	if len(req.Tools) > 0 {
		s.main = append(s.main, string(body))
		if len(s.script) > 0 {
			rep, s.script = s.script[0], s.script[1:]
		} else {
			rep = reply{text: "Done."}
		}
	}
	n := len(s.bodies)
	s.mu.Unlock()
	if req.Stream {
		s.stream(w, rep, n)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(message(rep, n))
}

func block(rep reply, n int) map[string]any {
	if rep.tool != "" {
		return map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%03d", n), "name": rep.tool, "input": rep.input}
	}
	return map[string]any{"type": "text", "text": rep.text}
}

// blocks are the content blocks of rep's message: its own, then those of
// the tool calls it comes with, each with an id of its own.
func blocks(rep reply, n int) []map[string]any {
	out := []map[string]any{block(rep, n)}
	for i, w := range rep.with {
		b := block(w, n)
		b["id"] = fmt.Sprintf("toolu_%03d_%d", n, i+1)
		out = append(out, b)
	}
	return out
}

func stopReason(rep reply) string {
	if rep.tool != "" {
		return "tool_use"
	}
	return "end_turn"
}

func message(rep reply, n int) map[string]any {
	return map[string]any{
		"id": fmt.Sprintf("msg_%03d", n), "type": "message", "role": "assistant", "model": "claude-stand-in",
		"content": blocks(rep, n), "stop_reason": stopReason(rep), "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": 100, "output_tokens": 10},
	}
}

func (s *standIn) stream(w http.ResponseWriter, rep reply, n int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	event := func(name string, data any) {
		js, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, js)
	}
	start := message(rep, n)
	start["content"] = []any{}
	start["stop_reason"] = nil
	event("message_start", map[string]any{"type": "message_start", "message": start})
	for i, b := range blocks(rep, n) {
		var delta map[string]any
		if input, ok := b["input"]; ok {
			js, _ := json.Marshal(input)
			b["input"] = map[string]any{}
			delta = map[string]any{"type": "input_json_delta", "partial_json": string(js)}
		} else {
			delta = map[string]any{"type": "text_delta", "text": b["text"]}
			b["text"] = ""
		}
		event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": b})
		event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": delta})
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stopReason(rep), "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 10}})
	event("message_stop", map[string]any{"type": "message_stop"})
}

// mainBodies returns the agent loop's request bodies so far.
func (s *standIn) mainBodies() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.main...)
}
