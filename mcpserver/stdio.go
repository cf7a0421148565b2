package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxLine bounds one request line: a record is a few kilobytes, and a
// larger line is refused without being held in memory.
const maxLine = 16 << 20

// guardLines is the transport over in and out with the lines checked
// first. The SDK's reader ends the session on a line that is not JSON, or
// not a JSON-RPC message it can take; a line that is not a JSON object or
// array gets JSON-RPC's parse error instead, one over maxLine or one that
// checkMessage refuses an invalid-request error, and the session goes on.
func guardLines(in io.Reader, out io.Writer, log io.Writer) mcp.Transport {
	pr, pw := io.Pipe()
	w := &lockedWriter{w: out}
	go func() {
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, tooLong, err := readLine(r)
			switch {
			case tooLong:
				fmt.Fprintf(log, "zylos-memory mcp: refused a request line over %d bytes\n", maxLine)
				w.Write(rpcErrorID(nil, codeInvalidRequest, fmt.Sprintf("request over %d bytes", maxLine)))
			case len(bytes.TrimSpace(line)) == 0:
			case !isMessage(line):
				fmt.Fprintf(log, "zylos-memory mcp: a request line that is not JSON: %.80q\n", line)
				w.Write(rpcErrorID(nil, codeParseError, "parse error: each line must be one JSON-RPC message"))
			default:
				if reply := checkMessage(line); reply != nil {
					fmt.Fprintf(log, "zylos-memory mcp: refused a message that is not valid JSON-RPC: %.80q\n", line)
					w.Write(reply)
					break
				}
				if _, werr := pw.Write(append(line, '\n')); werr != nil {
					return
				}
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return &mcp.IOTransport{Reader: pr, Writer: nopCloser{w}}
}

// readLine reads one line without its newline; a line over maxLine is
// read to its end and dropped. err is the reader's (io.EOF at the end).
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxLine+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
	}
}

// isMessage tells whether line is a JSON object or array (a batch), the
// only shapes a JSON-RPC message has.
func isMessage(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid(t)
}

// lockedWriter keeps whole messages apart: the SDK writes each in one
// call, and so do the parse errors above.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
