package secretscan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ScannerName is the scanner's file name, installed beside zylos-memory.
const ScannerName = "zylos-memory-scan"

// Item is one text to scan, named by the caller.
type Item struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// Finding is one credential the scanner found in an item: the rule that
// matched, the line (1-based) within the item's text where the match
// starts, and the rule's description. It never holds the secret nor the
// text it was found in. Line is 0 for RuleTooLarge: the whole item.
type Finding struct {
	ID          string `json:"id"`
	Rule        string `json:"rule"`
	Line        int    `json:"line"`
	Description string `json:"description"`
}

const (
	// waitDelay is how long Scan waits for the scanner's output to close
	// once the scanner has exited or been killed (a child it left behind
	// may hold the pipe).
	waitDelay = time.Second
	// maxStderr is how much of the scanner's stderr Scan keeps for its
	// error.
	maxStderr = 4 << 10
)

// Scan runs the scanner exe over items, bounded by ctx (the process is
// killed when ctx is done): the findings, in the order of the items. It
// returns an error when the scanner cannot be run, fails, or answers
// anything but a well-formed answer to the request: the caller then
// shares nothing. Items over MaxItemBytes are not sent; each comes back
// as a RuleTooLarge finding. Items are sent in as few runs of the scanner
// as MaxRequestBytes allows; none when there are none.
func Scan(ctx context.Context, exe string, items []Item) ([]Finding, error) {
	var found []placed
	var b batch
	flush := func() error {
		if len(b.items) == 0 {
			return nil
		}
		fs, err := b.run(ctx, exe, items)
		found = append(found, fs...)
		b = batch{}
		return err
	}
	for i, it := range items {
		if len(it.Text) > MaxItemBytes {
			found = append(found, placed{i, Finding{ID: it.ID, Rule: RuleTooLarge,
				Description: fmt.Sprintf("the text is over %d bytes, too large to scan", MaxItemBytes)}})
			continue
		}
		text := encodeString(it.Text)
		if len(b.items) > 0 && b.size()+1+len(text) > MaxRequestBytes {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		b.add(i, text)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].item < found[j].item })
	var out []Finding
	for _, p := range found {
		out = append(out, p.Finding)
	}
	return out, nil
}

// placed is a finding with the index of its item.
type placed struct {
	item int
	Finding
}

// batch is the items of one run of the scanner and their texts, encoded.
type batch struct {
	items []int
	texts [][]byte
	bytes int
}

// requestHead and requestTail frame a request's texts.
var requestHead = `{"protocol":` + strconv.Itoa(Protocol) + `,"texts":[`

const requestTail = "]}\n"

func (b *batch) add(item int, text []byte) {
	b.items = append(b.items, item)
	b.texts = append(b.texts, text)
	b.bytes += len(text)
}

// size is the length of the request: head, texts with a comma between
// each two, tail.
func (b *batch) size() int {
	return len(requestHead) + b.bytes + max(len(b.texts)-1, 0) + len(requestTail)
}

func (b *batch) request() []byte {
	req := make([]byte, 0, b.size())
	req = append(req, requestHead...)
	req = append(req, bytes.Join(b.texts, []byte(","))...)
	return append(req, requestTail...)
}

// run sends the batch to the scanner and names each finding by its item.
func (b *batch) run(ctx context.Context, exe string, items []Item) ([]placed, error) {
	texts := make([]string, len(b.items))
	for i, item := range b.items {
		texts[i] = items[item].Text
	}
	answer, err := runScanner(ctx, exe, b.request())
	if err != nil {
		return nil, err
	}
	wire, rules, err := decodeAnswer(answer, texts)
	if err != nil {
		return nil, fmt.Errorf("secret scanner %s answered nonsense: %w", exe, err)
	}
	found := make([]placed, len(wire))
	for i, f := range wire {
		item := b.items[f.Item]
		found[i] = placed{item, Finding{ID: items[item].ID, Rule: f.Rule, Line: f.Line, Description: rules[f.Rule]}}
	}
	return found, nil
}

// runScanner runs exe on req, with an empty environment, and returns its
// stdout: at most four times the request and a mebibyte, which holds the
// findings a request can have.
func runScanner(ctx context.Context, exe string, req []byte) ([]byte, error) {
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = []string{}
	cmd.Stdin = bytes.NewReader(req)
	stdout := &boundedBuffer{limit: 1<<20 + 4*len(req), refuse: true}
	stderr := &boundedBuffer{limit: maxStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = waitDelay
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("secret scanner %s: %w", exe, context.Cause(ctx))
	case stdout.over:
		return nil, fmt.Errorf("secret scanner %s answered over %d bytes", exe, stdout.limit)
	case errors.As(err, &exit):
		return nil, fmt.Errorf("secret scanner %s failed (%v): %s", exe, exit, firstLine(stderr.buf.String()))
	case err != nil:
		return nil, fmt.Errorf("secret scanner %s: %w", exe, err)
	}
	return stdout.buf.Bytes(), nil
}

// boundedBuffer keeps the first limit bytes written to it. Past them it
// fails the write when it refuses (the scanner then gets a broken pipe),
// else drops the rest.
type boundedBuffer struct {
	buf    bytes.Buffer
	limit  int
	refuse bool
	over   bool
}

var errOverLimit = errors.New("output over its limit")

func (b *boundedBuffer) Write(p []byte) (int, error) {
	room := b.limit - b.buf.Len()
	if len(p) <= room {
		return b.buf.Write(p)
	}
	b.buf.Write(p[:max(room, 0)])
	b.over = true
	if b.refuse {
		return max(room, 0), errOverLimit
	}
	return len(p), nil
}

// firstLine is the first non-empty line of s, or a note that there was
// none.
func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return "no message on stderr"
}

// encodeString is s as a JSON string.
func encodeString(s string) []byte {
	var buf bytes.Buffer
	_ = encode(&buf, s) // a string always encodes, into a buffer that cannot fail
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// Binary is the scanner installed beside the program at self (the path of
// the running zylos-memory, which the caller finds): an error naming the
// path when it is missing or not an executable file.
func Binary(self string) (string, error) {
	path := filepath.Join(filepath.Dir(self), ScannerName)
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("secret scanner %s is missing; install it beside %s (make install)", path, filepath.Base(self))
	case err != nil:
		return "", fmt.Errorf("secret scanner: %w", err)
	case !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0:
		return "", fmt.Errorf("secret scanner %s is not an executable file (%v)", path, info.Mode())
	}
	return path, nil
}
