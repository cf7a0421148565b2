package hooks

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestParseInput(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    Input
		wantErr bool
	}{
		{
			name: "session start",
			data: `{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":"/home/u/zylos","hook_event_name":"SessionStart","source":"compact"}`,
			want: Input{SessionID: "s1", TranscriptPath: "/tmp/t.jsonl", Cwd: "/home/u/zylos", HookEventName: "SessionStart", Source: "compact"},
		},
		{
			name: "prompt",
			data: `{"hook_event_name":"UserPromptSubmit","prompt":"hello"}`,
			want: Input{HookEventName: "UserPromptSubmit", Prompt: "hello"},
		},
		{
			name: "older user_prompt name",
			data: `{"user_prompt":"hi"}`,
			want: Input{Prompt: "hi"},
		},
		{
			name: "stop and tool fields",
			data: `{"stop_hook_active":true,"tool_name":"Write","tool_input":{"file_path":"/x"},"tool_response":"ok"}`,
			want: Input{StopHookActive: true, ToolName: "Write", ToolInput: []byte(`{"file_path":"/x"}`), ToolResponse: []byte(`"ok"`)},
		},
		{
			name:    "one field of the wrong type keeps the others",
			data:    `{"session_id":5,"prompt":"still read"}`,
			want:    Input{Prompt: "still read"},
			wantErr: true,
		},
		{name: "garbage", data: "not json", wantErr: true},
		{name: "array", data: `[1,2]`, wantErr: true},
		{name: "empty", data: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseInput([]byte(tt.data))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			got.Raw = nil
			if got.SessionID != tt.want.SessionID || got.Prompt != tt.want.Prompt || got.Source != tt.want.Source ||
				got.Cwd != tt.want.Cwd || got.HookEventName != tt.want.HookEventName || got.TranscriptPath != tt.want.TranscriptPath ||
				got.StopHookActive != tt.want.StopHookActive || got.ToolName != tt.want.ToolName ||
				string(got.ToolInput) != string(tt.want.ToolInput) || string(got.ToolResponse) != string(tt.want.ToolResponse) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestReadInputLimits(t *testing.T) {
	payload := func(n int) string { return `{"prompt":"` + strings.Repeat("x", n-len(`{"prompt":""}`)) + `"}` }
	if _, err := ReadInput(context.Background(), strings.NewReader(payload(MaxInput+1))); !errors.Is(err, ErrInputTooLarge) {
		t.Errorf("oversized input: err = %v, want ErrInputTooLarge", err)
	}
	data, err := ReadInput(context.Background(), strings.NewReader(payload(MaxInput)))
	if err != nil || len(data) != MaxInput {
		t.Errorf("input at the cap: len %d, err %v", len(data), err)
	}
	data, err = ReadInput(context.Background(), strings.NewReader("garbage\x00"))
	if err != nil || string(data) != "garbage\x00" {
		t.Errorf("garbage: %q, %v; want it returned as read", data, err)
	}
}

func TestReadInputDoesNotWaitForEOF(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	go w.Write([]byte(`{"prompt":"p"}` + "\n"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	data, err := ReadInput(ctx, r)
	if err != nil || string(data) != `{"prompt":"p"}` {
		t.Fatalf("got %q, %v", data, err)
	}
}

func TestReadInputOpenPipeReturnsAtDeadline(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	go w.Write([]byte(`{"prompt":`)) // a writer that never closes
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := ReadInput(ctx, r); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
}

func FuzzParseInput(f *testing.F) {
	for _, seed := range []string{
		`{"session_id":"s","prompt":"p","stop_hook_active":true,"tool_input":{"a":1}}`,
		`{"user_prompt":"x"}`, `[]`, `null`, `{"prompt":1}`, "\xff", `{"a":`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := ParseInput(data)
		if err == nil && in.Raw == nil && data != nil {
			t.Fatal("Raw not kept")
		}
	})
}
