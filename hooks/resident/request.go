package resident

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// request is one hook invocation as client.c sends it.
type request struct {
	identity string   // dev:ino:size:mtime of the client's binary
	exe      string   // the client's binary, as /proc/self/exe names it
	cwd      string   // the client's working directory
	args     []string // argv, the program name first
	env      []string // KEY=value, in the client's order
}

var errBadRequest = errors.New("not a hook request")

// parseRequest reads a request's body (what follows its length): NUL-
// terminated fields, the magic first.
func parseRequest(body []byte) (request, error) {
	fields := bytes.Split(body, []byte{0})
	if len(fields) < 6 || len(fields[len(fields)-1]) != 0 {
		return request{}, errBadRequest
	}
	fields = fields[:len(fields)-1] // what follows the last NUL
	if string(fields[0]) != magic {
		return request{}, fmt.Errorf("%w: protocol %q", errBadRequest, fields[0])
	}
	argc, err := strconv.Atoi(string(fields[4]))
	if err != nil || argc < 1 || argc > len(fields)-5 || strconv.Itoa(argc) != string(fields[4]) {
		return request{}, fmt.Errorf("%w: argc %q", errBadRequest, fields[4])
	}
	r := request{
		identity: string(fields[1]),
		exe:      string(fields[2]),
		cwd:      string(fields[3]),
	}
	for _, f := range fields[5 : 5+argc] {
		r.args = append(r.args, string(f))
	}
	for _, f := range fields[5+argc:] {
		r.env = append(r.env, string(f))
	}
	return r, nil
}

// lookupEnv reads the client's environment as os.LookupEnv would read its
// own: the first of duplicate keys wins.
func (r request) lookupEnv(key string) (string, bool) {
	for _, kv := range r.env {
		if len(kv) > len(key) && kv[len(key)] == '=' && kv[:len(key)] == key {
			return kv[len(key)+1:], true
		}
	}
	return "", false
}

func (r request) getenv(key string) string {
	v, _ := r.lookupEnv(key)
	return v
}
