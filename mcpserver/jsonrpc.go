package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// maxExactID bounds the integer ids the SDK carries exactly: it decodes a
// number through float64, so a larger one, a fraction or an exponent
// would be answered under another id.
const maxExactID = 1 << 53

var integerID = regexp.MustCompile(`^-?(0|[1-9][0-9]{0,15})$`)

// Codes of JSON-RPC 2.0.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// checkMessage answers a line that is JSON but not a JSON-RPC message
// the SDK can take whole: a batch (MCP 2025-06-18 has none), no
// "jsonrpc":"2.0", a method that is not a string, an id that is not a
// string or an integer the SDK carries exactly, a message that is neither
// a request, a notification nor a response. It returns the error to send
// (under the request's own id, byte for byte, when it has one that can be
// echoed; else under null), or nil to pass the line on.
func checkMessage(line []byte) []byte {
	t := bytes.TrimSpace(line)
	if len(t) > 0 && t[0] == '[' {
		return checkBatch(t)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(t, &m); err != nil {
		return rpcErrorID(nil, codeInvalidRequest, "invalid request: a message is a JSON object")
	}
	id, hasID := m["id"]
	echo := echoableID(id)
	for k := range m {
		for _, known := range []string{"jsonrpc", "id", "method", "params", "result", "error"} {
			// The SDK decodes into structs, whose field names match any case.
			if k != known && strings.EqualFold(k, known) {
				return rpcErrorID(echo, codeInvalidRequest, fmt.Sprintf("invalid request: key %q: keys are lower case (%q)", k, known))
			}
		}
	}
	if v, ok := m["jsonrpc"]; !ok || string(bytes.TrimSpace(v)) != `"2.0"` {
		return rpcErrorID(echo, codeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
	}
	method, hasMethod := m["method"]
	if hasMethod {
		var s string
		if json.Unmarshal(method, &s) != nil {
			return rpcErrorID(echo, codeInvalidRequest, `invalid request: "method" must be a string`)
		}
	}
	if hasID {
		if why := idProblem(id); why != "" {
			return rpcErrorID(echo, codeInvalidRequest, "invalid request: "+why)
		}
	}
	_, hasResult := m["result"]
	_, hasError := m["error"]
	if !hasMethod && !(hasID && (hasResult || hasError)) {
		return rpcErrorID(echo, codeInvalidRequest, `invalid request: a message has a "method" (a request or notification), or an "id" with a "result" or "error" (a response)`)
	}
	return nil
}

// idProblem says why an id cannot be carried, or "".
func idProblem(id json.RawMessage) string {
	raw := bytes.TrimSpace(id)
	switch {
	case len(raw) > 0 && raw[0] == '"':
		return ""
	case string(raw) == "null":
		return `"id" must not be null (MCP): use a string or an integer`
	case len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9'):
		if integerID.Match(raw) {
			if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil && n >= -maxExactID && n <= maxExactID {
				return ""
			}
		}
		return fmt.Sprintf(`"id" %.40s cannot be carried exactly: use a string, or an integer within ±2^53`, raw)
	}
	return `"id" must be a string or an integer`
}

// echoableID is the id to answer an invalid message under: its own bytes
// when it is a string or a number, else null.
func echoableID(id json.RawMessage) json.RawMessage {
	raw := bytes.TrimSpace(id)
	if len(raw) == 0 {
		return nil
	}
	if raw[0] == '"' || raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9' {
		return raw
	}
	return nil
}

// checkBatch answers a batch: an empty one with one error, else an error
// for each element that expects an answer (a request, or an element that
// is no message at all), never an empty array.
func checkBatch(t []byte) []byte {
	var elems []json.RawMessage
	if err := json.Unmarshal(t, &elems); err != nil || len(elems) == 0 {
		return rpcErrorID(nil, codeInvalidRequest, "invalid request: an empty batch")
	}
	var answers []json.RawMessage
	for _, e := range elems {
		var m map[string]json.RawMessage
		if json.Unmarshal(e, &m) != nil {
			answers = append(answers, bytes.TrimSpace(rpcErrorID(nil, codeInvalidRequest, "invalid request: a message is a JSON object")))
			continue
		}
		if _, isRequest := m["id"]; !isRequest {
			if _, isNotification := m["method"]; isNotification {
				continue
			}
		}
		answers = append(answers, bytes.TrimSpace(rpcErrorID(echoableID(m["id"]), codeInvalidRequest,
			"invalid request: batches are not supported (MCP 2025-06-18): send one message a line")))
	}
	if len(answers) == 0 {
		return []byte{} // notifications only: nothing to answer, nothing passed on
	}
	b, _ := json.Marshal(answers)
	return append(b, '\n')
}

// rpcErrorID is an error answer under id (null when nil).
func rpcErrorID(id json.RawMessage, code int, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	return append(b, '\n')
}
