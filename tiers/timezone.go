package tiers

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/regfile"
)

// Location resolves the timezone for dates and schedules: TZ in the
// environment (l.TZ), else TZ= in $ZYLOS_DIR/.env, else the system's
// local zone.
func (l Layout) Location() (*time.Location, error) {
	if l.TZ != "" {
		return loadLocation(l.TZ, "TZ")
	}
	data, err := regfile.ReadFile(l.EnvFile())
	if errors.Is(err, regfile.ErrNotRegular) {
		return nil, fmt.Errorf("read timezone: %w", err)
	}
	if err != nil {
		return time.Local, nil
	}
	if tz := envFileValue(data, "TZ"); tz != "" {
		return loadLocation(tz, l.EnvFile())
	}
	return time.Local, nil
}

func loadLocation(name, source string) (*time.Location, error) {
	loc, err := time.LoadLocation(strings.TrimPrefix(name, ":"))
	if err != nil {
		return nil, fmt.Errorf("timezone %q from %s: %w", name, source, err)
	}
	return loc, nil
}

// envFileValue returns the value of key in a dotenv file: KEY=value lines,
// optional "export ", optional single or double quotes, # comments.
func envFileValue(data []byte, key string) string {
	var value string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) != key {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && strings.IndexByte(v[1:], v[0]) >= 0 {
			v = v[1 : 1+strings.IndexByte(v[1:], v[0])] // a comment may follow the closing quote
		} else if i := strings.Index(v, " #"); i >= 0 {
			v = strings.TrimSpace(v[:i])
		}
		value = v // the last assignment wins, as in a shell
	}
	return value
}
