package triage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/hookstate"
	"github.com/zylos/zylos-memory/tiers/records"
)

// Exit codes of `records triage`: 0 lets the agent stop, 2 blocks the stop
// and hands stderr to the agent.
const (
	ExitAllow = 0
	ExitBlock = 2
)

// DefaultTimeout bounds a run, well under the Stop hook's 30 s timeout.
const DefaultTimeout = time.Second

// maxStdin bounds the hook input; a Stop payload is a few hundred bytes.
const maxStdin = 1 << 20

// Options is what a run takes from its caller.
type Options struct {
	Config     records.TriageConfig // the triage section of the records config
	Home       string               // $HOME: transcripts must live under it or under /tmp
	StateDir   string               // the home's memory/.state: per-session stop flag and context files
	ContextDir string               // where context files go; "" means the session's state directory
	Command    string               // how the agent runs this binary for this home; "" means zylos-memory
	Now        func() time.Time     // clock
	Timeout    time.Duration        // whole-run bound; 0 means DefaultTimeout
}

// Input is the part of the Stop hook payload triage reads.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	StopHookActive bool   `json:"stop_hook_active"`
	// LastAssistantMessage is the final reply, which Claude Code may write
	// to the transcript only after the Stop hook ran.
	LastAssistantMessage string `json:"last_assistant_message"`
}

// Run is the Stop hook: it reads the payload from stdin and returns the
// exit code. A block writes its message to stderr; everything else
// (disabled, nothing to save, any error, the deadline) allows the stop,
// with a one-line reason on stderr for errors.
func Run(ctx context.Context, stdin io.Reader, stderr io.Writer, opts Options) int {
	opts = opts.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	done := make(chan outcome, 1)
	go func() { done <- evaluate(ctx, stdin, opts) }()
	select {
	case out := <-done:
		if out.err != nil {
			fmt.Fprintf(stderr, "memory triage: %v (allowing stop)\n", out.err)
			return ExitAllow
		}
		if out.message == "" {
			return ExitAllow
		}
		io.WriteString(stderr, out.message)
		return ExitBlock
	case <-ctx.Done():
		fmt.Fprintf(stderr, "memory triage: %v (allowing stop)\n", ctx.Err())
		return ExitAllow
	}
}

type outcome struct {
	message string
	err     error
}

func evaluate(ctx context.Context, stdin io.Reader, opts Options) outcome {
	in, err := ParseInput(stdin)
	if err != nil {
		return outcome{err: err}
	}
	msg, err := Decide(ctx, in, opts)
	return outcome{message: msg, err: err}
}

func (o Options) withDefaults() Options {
	if o.StateDir == "" {
		o.StateDir = filepath.Join(os.TempDir(), "zylos-memory-state-"+strconv.Itoa(os.Getuid()))
	}
	if o.Command == "" {
		o.Command = "zylos-memory"
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Config.Thresholds == nil {
		o.Config = records.DefaultConfig().Triage
	}
	return o
}

// ParseInput decodes the first JSON value of r. It does not wait for EOF:
// Claude Code may keep stdin open after writing the payload.
func ParseInput(r io.Reader) (Input, error) {
	var in Input
	if err := json.NewDecoder(io.LimitReader(r, maxStdin)).Decode(&in); err != nil {
		if errors.Is(err, io.EOF) {
			return Input{}, nil // no payload: nothing to triage
		}
		return Input{}, fmt.Errorf("read hook input: %w", err)
	}
	return in, nil
}

// Decide is the Stop hook's decision for an already parsed payload: the
// message that blocks the stop, or "" to let it happen. An error also
// lets the stop happen; the caller reports it in one line. Decide writes
// the context files and the stop flag of a block in the session's state
// directory, and the stop it lets through after a block removes both; it
// does not enforce opts.Timeout, the caller's ctx bounds it.
func Decide(ctx context.Context, in Input, opts Options) (string, error) {
	opts = opts.withDefaults()
	state := hookstate.Dir(opts.StateDir, in.SessionID)
	if in.StopHookActive || consumeFreshFlag(state, opts.Now()) {
		// The retry after a block: the agent has saved what it chose to.
		clearBlock(state)
		return "", nil
	}
	if !opts.Config.Enabled || (in.TranscriptPath == "" && in.LastAssistantMessage == "") {
		return "", nil
	}
	msgs, err := transcriptTail(in, opts)
	if err != nil {
		return "", err
	}
	msgs = withFinalReply(msgs, in.LastAssistantMessage)
	lines, act := digest(msgs)
	hits := scoreAll(lines, act, opts.Config.Thresholds)
	if len(hits) == 0 {
		return "", nil
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	contextDir := opts.ContextDir
	if contextDir == "" {
		contextDir = state
		if err := hookstate.Ensure(state); err != nil {
			return "", fmt.Errorf("state directory: %w", err)
		}
	}
	files := map[string]string{}
	for _, h := range hits {
		// A missing context file costs the agent detail, not the save.
		if p, err := writeContext(contextDir, h, lines, act); err == nil {
			files[h.Category] = p
		}
	}
	// Past the deadline the caller has already let the stop happen: a flag
	// now would wrongly let the next one through too.
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := writeFlag(state, opts.Now()); err != nil {
		return "", fmt.Errorf("write stop flag: %w", err)
	}
	return blockMessage(hits, act, files, parallelOf(opts.Config), opts.Command), nil
}

// transcriptTail reads the last messages of the session's transcript. A
// transcript that does not exist yet is no error when the final reply
// came with the input: Claude Code may write a short session's transcript
// only after its Stop hooks ran, and the reply is then all there is.
func transcriptTail(in Input, opts Options) ([]message, error) {
	if in.TranscriptPath == "" {
		return nil, nil
	}
	path, err := confine(in.TranscriptPath, opts.Home)
	if errors.Is(err, fs.ErrNotExist) && in.LastAssistantMessage != "" {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return readTail(path, opts.Config.MaxMessages)
}

// withFinalReply appends the final reply as an assistant message unless the
// transcript already ends with it.
func withFinalReply(msgs []message, reply string) []message {
	if strings.TrimSpace(reply) == "" {
		return msgs
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Type != "assistant" {
			continue
		}
		content := msgs[i].Content
		if msgs[i].Message != nil && len(msgs[i].Message.Content) > 0 {
			content = msgs[i].Message.Content
		}
		texts := contentText(content, func(string) {})
		if len(texts) > 0 {
			if strings.TrimSpace(strings.Join(texts, "\n")) == strings.TrimSpace(reply) {
				return msgs
			}
			break
		}
	}
	content, _ := json.Marshal(reply) // a string: cannot fail
	return append(msgs, message{Type: "assistant", Content: content})
}

// confine resolves every symlink of path and accepts it only under /tmp or
// home, so a crafted payload cannot make the hook read (and quote back)
// any file on the machine.
func confine(path, home string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("transcript: %w", err)
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return "", fmt.Errorf("transcript: %w", err)
	}
	for _, root := range []string{"/tmp", home} {
		if root == "" || !filepath.IsAbs(root) {
			continue
		}
		if r, err := filepath.EvalSymlinks(root); err == nil {
			root = r
		}
		if strings.HasPrefix(real, strings.TrimSuffix(root, "/")+"/") {
			return real, nil
		}
	}
	return "", fmt.Errorf("transcript %s is outside /tmp and $HOME", real)
}
