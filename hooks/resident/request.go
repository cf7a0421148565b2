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
	exe      string   // the client's binary, as /proc/self/exe names it; never run
	cwd      string   // the client's working directory
	started  int64    // when the client started waiting: CLOCK_MONOTONIC, ms
	umask    int64    // the client's umask
	args     []string // argv, the program name first
	env      []string // KEY=value, in the client's order
}

var errBadRequest = errors.New("not a hook request")

// parseRequest reads a request's body (what follows its length): NUL-
// terminated fields, the magic first.
func parseRequest(body []byte) (request, error) {
	fields := bytes.Split(body, []byte{0})
	if len(fields) < 8 || len(fields[len(fields)-1]) != 0 {
		return request{}, errBadRequest
	}
	fields = fields[:len(fields)-1] // what follows the last NUL
	if string(fields[0]) != magic {
		return request{}, fmt.Errorf("%w: protocol %q", errBadRequest, fields[0])
	}
	started, err := canonicalInt(fields[4])
	if err != nil || started < 0 {
		return request{}, fmt.Errorf("%w: start %q", errBadRequest, fields[4])
	}
	umask, err := canonicalInt(fields[5])
	if err != nil || umask < 0 || umask > 0o777 {
		return request{}, fmt.Errorf("%w: umask %q", errBadRequest, fields[5])
	}
	argc, err := canonicalInt(fields[6])
	if err != nil || argc < 1 || argc > int64(len(fields)-7) {
		return request{}, fmt.Errorf("%w: argc %q", errBadRequest, fields[6])
	}
	r := request{
		identity: string(fields[1]),
		exe:      string(fields[2]),
		cwd:      string(fields[3]),
		started:  started,
		umask:    umask,
	}
	for _, f := range fields[7 : 7+argc] {
		r.args = append(r.args, string(f))
	}
	for _, f := range fields[7+argc:] {
		r.env = append(r.env, string(f))
	}
	return r, nil
}

// canonicalInt reads a decimal number written as client.c writes it.
func canonicalInt(field []byte) (int64, error) {
	n, err := strconv.ParseInt(string(field), 10, 64)
	if err == nil && strconv.FormatInt(n, 10) != string(field) {
		err = errBadRequest
	}
	return n, err
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
