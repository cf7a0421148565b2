package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// MaxInput bounds how much of stdin a hook reads. Most payloads are a few
// kilobytes, but a PostToolUse payload carries the whole content of a
// Write twice (tool_input and tool_response), and a record written past
// the guard must still reach validation.
const MaxInput = 8 << 20

// ErrInputTooLarge is returned when stdin holds more than MaxInput bytes.
var ErrInputTooLarge = errors.New("hook input over 8 MiB")

// Input is the JSON Claude Code writes on a hook's stdin. Fields a given
// event does not send stay zero.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Source         string `json:"source"`
	Prompt         string `json:"prompt"`
	StopHookActive bool   `json:"stop_hook_active"`
	// LastAssistantMessage is the final reply, in Stop's input.
	LastAssistantMessage string `json:"last_assistant_message"`
	ToolName             string `json:"tool_name"`
	// ToolUseID is Claude Code's id of a tool call, the same in its
	// PreToolUse, PostToolUse and PostToolUseFailure.
	ToolUseID    string          `json:"tool_use_id"`
	ToolInput    json.RawMessage `json:"tool_input"`
	ToolResponse json.RawMessage `json:"tool_response"`

	// Raw is stdin as read, for entry points that hand it on unchanged.
	Raw []byte `json:"-"`
}

// ParseInput decodes a hook payload field by field, so one field of an
// unexpected type does not cost the others. It returns the fields it could
// read and an error describing the first problem; callers that fail open
// use the partial Input.
func ParseInput(data []byte) (Input, error) {
	in := Input{Raw: data}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return in, fmt.Errorf("hook input is not a JSON object: %w", err)
	}
	var first error
	decode := func(key string, dst any) {
		raw, ok := fields[key]
		if !ok {
			return
		}
		if err := json.Unmarshal(raw, dst); err != nil && first == nil {
			first = fmt.Errorf("hook input field %q: %w", key, err)
		}
	}
	decode("session_id", &in.SessionID)
	decode("transcript_path", &in.TranscriptPath)
	decode("cwd", &in.Cwd)
	decode("hook_event_name", &in.HookEventName)
	decode("source", &in.Source)
	decode("prompt", &in.Prompt)
	if in.Prompt == "" {
		decode("user_prompt", &in.Prompt) // the plugin scripts' older name
	}
	decode("stop_hook_active", &in.StopHookActive)
	decode("last_assistant_message", &in.LastAssistantMessage)
	decode("tool_name", &in.ToolName)
	decode("tool_use_id", &in.ToolUseID)
	in.ToolInput = fields["tool_input"]
	in.ToolResponse = fields["tool_response"]
	return in, first
}

// ReadInput reads the first JSON value on stdin, up to MaxInput bytes. It
// does not wait for EOF, since Claude Code may keep the pipe open after the
// payload, and it gives up when ctx ends: a writer that never finishes
// costs the deadline, never a hang. Input that is not JSON is returned as
// read, for ParseInput to report. The reading goroutine may outlive the
// call; the process exits soon after.
func ReadInput(ctx context.Context, r io.Reader) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := readFirstValue(r)
		done <- result{data, err}
	}()
	select {
	case res := <-done:
		return res.data, res.err
	case <-ctx.Done():
		return nil, fmt.Errorf("read hook input: stdin still open: %w", ctx.Err())
	}
}

func readFirstValue(r io.Reader) ([]byte, error) {
	var buf bytes.Buffer
	limited := io.TeeReader(io.LimitReader(r, MaxInput+1), &buf)
	var raw json.RawMessage
	err := json.NewDecoder(limited).Decode(&raw)
	switch {
	case buf.Len() > MaxInput:
		return nil, ErrInputTooLarge
	case err == nil:
		return raw, nil
	case errors.Is(err, io.EOF):
		return nil, nil // empty stdin
	}
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF) {
		return buf.Bytes(), nil // not JSON: ParseInput says why
	}
	return nil, fmt.Errorf("read hook input: %w", err)
}
