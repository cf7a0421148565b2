package register

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/hooks"
)

// Entry is one of this binary's hook entries as found in a settings
// file.
type Entry struct {
	Command string
	Timeout time.Duration // 0 when unset
}

// ForHome reports whether the entry runs the hook for the home dir.
func (r Entry) ForHome(dir string) bool {
	return strings.Contains(r.Command, " --zylos-dir "+hooks.ShellQuote(dir)+" ")
}

// Binary is the program the entry runs: shellQuote undone for the first
// word of its command.
func (r Entry) Binary() string {
	command := strings.TrimSpace(r.Command)
	if !strings.HasPrefix(command, "'") {
		word, _, _ := strings.Cut(command, " ")
		return word
	}
	var b strings.Builder
	for rest := command; strings.HasPrefix(rest, "'"); {
		end := strings.Index(rest[1:], "'")
		if end < 0 {
			return b.String() + rest[1:]
		}
		b.WriteString(rest[1 : 1+end])
		rest = rest[2+end:]
		if !strings.HasPrefix(rest, `\''`) {
			break
		}
		b.WriteByte('\'')
		rest = rest[2:]
	}
	return b.String()
}

// Entries reads a settings file's hooks and lists the entries that
// are this binary's, per event name.
func Entries(data []byte) (map[string][]Entry, error) {
	doc, err := parseObject(data)
	if err != nil {
		return nil, err
	}
	found := map[string][]Entry{}
	raw, ok := doc.get("hooks")
	if !ok {
		return found, nil
	}
	var events map[string][]struct {
		Hooks []struct {
			Command string          `json:"command"`
			Timeout json.RawMessage `json:"timeout"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(raw, &events); err != nil {
		return nil, fmt.Errorf(`"hooks": %w`, err)
	}
	for _, ev := range hooks.AllEvents() {
		for _, group := range events[ev.Name] {
			for _, h := range group.Hooks {
				if isOwn(h.Command, ev) {
					var secs float64
					_ = json.Unmarshal(h.Timeout, &secs)
					found[ev.Name] = append(found[ev.Name], Entry{h.Command, time.Duration(secs * float64(time.Second))})
				}
			}
		}
	}
	return found, nil
}
