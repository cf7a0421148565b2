package triage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/zylos/zylos-memory/internal/regfile"
)

// maxTailBytes bounds how far back from the end of a transcript the reader
// goes. A tail of max_messages almost always sits in the last few hundred
// KB; the bound keeps a transcript made of one huge line (or of zeros) from
// costing more than a few milliseconds.
const maxTailBytes = 8 << 20

// firstChunk is the first read size; each further read doubles it, so a
// tail costs O(bytes read) however long its lines are.
const firstChunk = 64 << 10

// message is one transcript line, in either the documented hook shape
// (type + content) or Claude Code's stored shape (type + message.content).
type message struct {
	Type    string          `json:"type"`
	Name    string          `json:"name"`
	Content json.RawMessage `json:"content"`
	Message *struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// readTail returns the last n JSON-object lines of the transcript at path,
// oldest first. It reads from the end of the file and never more than
// maxTailBytes; corrupt lines are skipped.
func readTail(path string, n int) ([]message, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open transcript: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat transcript: %w", err)
	}
	return tailMessages(f, st.Size(), n)
}

func tailMessages(r io.ReaderAt, size int64, n int) ([]message, error) {
	var newestFirst []message
	end := size // everything at or after end is already handled
	floor := max(0, size-maxTailBytes)
	for chunk := int64(firstChunk); end > floor && len(newestFirst) < n; chunk *= 2 {
		start := max(floor, end-chunk)
		buf := make([]byte, end-start)
		if _, err := r.ReadAt(buf, start); err != nil && err != io.EOF {
			return nil, fmt.Errorf("read transcript: %w", err)
		}
		complete := buf
		if start > 0 {
			nl := bytes.IndexByte(buf, '\n')
			if nl < 0 {
				if start == floor {
					break // one line longer than the bound: stop here
				}
				continue
			}
			complete = buf[nl+1:]
			end = start + int64(nl)
		} else {
			end = 0
		}
		newestFirst = appendNewestFirst(newestFirst, complete, n)
	}
	for i, j := 0, len(newestFirst)-1; i < j; i, j = i+1, j-1 {
		newestFirst[i], newestFirst[j] = newestFirst[j], newestFirst[i]
	}
	return newestFirst, nil
}

// appendNewestFirst parses the lines of block from last to first, adding
// each JSON object to msgs until it holds n.
func appendNewestFirst(msgs []message, block []byte, n int) []message {
	for len(block) > 0 && len(msgs) < n {
		i := bytes.LastIndexByte(block, '\n')
		line := bytes.TrimSpace(block[i+1:])
		block = block[:max(i, 0)]
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var m message
		if json.Unmarshal(line, &m) == nil {
			msgs = append(msgs, m)
		}
		if i < 0 {
			break
		}
	}
	return msgs
}
