package register

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// mergeSettings puts each wanted entry into the settings document and
// removes stale copies of it. It reports whether anything changed; an
// unchanged document is returned as is, byte for byte.
func mergeSettings(old []byte, want []entry, env []member) ([]byte, bool, error) {
	doc := object{}
	if len(bytes.TrimSpace(old)) > 0 {
		var err error
		if doc, err = parseObject(old); err != nil {
			return nil, false, err
		}
	}
	events := object{}
	if raw, ok := doc.get("hooks"); ok {
		var err error
		if events, err = parseObject(raw); err != nil {
			return nil, false, fmt.Errorf(`"hooks": %w`, err)
		}
	}
	changed := false
	for _, e := range want {
		var groups []json.RawMessage
		if raw, ok := events.get(e.event.Name); ok {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return nil, false, fmt.Errorf(`"hooks.%s" is not an array of matcher groups`, e.event.Name)
			}
		}
		merged, ch, err := mergeEvent(groups, e)
		if err != nil {
			return nil, false, fmt.Errorf(`"hooks.%s": %w`, e.event.Name, err)
		}
		if ch {
			changed = true
			events = events.set(e.event.Name, marshalArray(merged))
		}
	}
	if changed {
		eventsJSON, _ := events.MarshalJSON()
		doc = doc.set("hooks", eventsJSON)
	}
	doc, envChanged, err := mergeEnv(doc, env)
	if err != nil {
		return nil, false, err
	}
	if !changed && !envChanged {
		return old, false, nil
	}
	return indent(doc), true, nil
}

// mergeEnv sets each wanted variable in the settings' "env" object, which
// Claude Code applies to the session, its hooks and its Bash tool, and
// keeps the user's other variables. A member with a nil value is removed.
func mergeEnv(doc object, want []member) (object, bool, error) {
	if len(want) == 0 {
		return doc, false, nil
	}
	vars := object{}
	if raw, ok := doc.get("env"); ok {
		var err error
		if vars, err = parseObject(raw); err != nil {
			return nil, false, fmt.Errorf(`"env": %w`, err)
		}
	}
	changed := false
	for _, m := range want {
		cur, ok := vars.get(m.Key)
		switch {
		case m.Value == nil && ok:
			vars, changed = vars.remove(m.Key), true
		case m.Value != nil && (!ok || !bytes.Equal(cur, m.Value)):
			vars, changed = vars.set(m.Key, m.Value), true
		}
	}
	if !changed {
		return doc, false, nil
	}
	raw, _ := vars.MarshalJSON()
	return doc.set("env", raw), true, nil
}

// mergeEvent keeps every group and hook of the user, keeps our entry where
// it already is when it is exactly right, and otherwise replaces the first
// stale copy in place (or appends a group of its own) and drops the rest.
func mergeEvent(groups []json.RawMessage, e entry) ([]json.RawMessage, bool, error) {
	want := hookEntry(e)
	var out []json.RawMessage
	placed, changed := false, false
	for _, raw := range groups {
		group, err := parseObject(raw)
		if err != nil {
			return nil, false, fmt.Errorf("matcher group: %w", err)
		}
		var hooks []json.RawMessage
		if h, ok := group.get("hooks"); ok {
			if err := json.Unmarshal(h, &hooks); err != nil {
				return nil, false, fmt.Errorf(`"hooks" of a matcher group is not an array`)
			}
		}
		matcherOK := groupMatcher(group) == e.event.Matcher
		var kept []json.RawMessage
		groupChanged := false
		for _, h := range hooks {
			cmd, exact := ownHook(h, e)
			switch {
			case cmd == "":
				kept = append(kept, h)
			case exact && matcherOK && !placed:
				kept = append(kept, h)
				placed = true
			case matcherOK && !placed:
				kept = append(kept, want)
				placed, groupChanged = true, true
			default:
				groupChanged = true
			}
		}
		if !groupChanged {
			out = append(out, raw)
			continue
		}
		changed = true
		if len(kept) > 0 {
			g, _ := group.set("hooks", marshalArray(kept)).MarshalJSON()
			out = append(out, g)
		}
	}
	if !placed {
		out = append(out, newGroup(e, want))
		changed = true
	}
	return out, changed, nil
}

// ownHook returns the command of h when h is our entry point for e's
// event, and whether it is exactly the entry we want.
func ownHook(h json.RawMessage, e entry) (command string, exact bool) {
	var hook struct {
		Type    string          `json:"type"`
		Command string          `json:"command"`
		Timeout json.RawMessage `json:"timeout"`
	}
	if json.Unmarshal(h, &hook) != nil || !isOwn(hook.Command, e.event) {
		return "", false
	}
	exact = hook.Type == "command" && hook.Command == e.command &&
		string(hook.Timeout) == fmt.Sprint(e.event.Timeout)
	return hook.Command, exact
}

func groupMatcher(group object) string {
	var m string
	if raw, ok := group.get("matcher"); ok {
		_ = json.Unmarshal(raw, &m)
	}
	return m
}

func hookEntry(e entry) json.RawMessage {
	h, _ := object{
		{"type", marshal("command")},
		{"command", marshal(e.command)},
		{"timeout", marshal(e.event.Timeout)},
	}.MarshalJSON()
	return h
}

func newGroup(e entry, hook json.RawMessage) json.RawMessage {
	var g object
	if e.event.Matcher != "" {
		g = append(g, member{"matcher", marshal(e.event.Matcher)})
	}
	g = append(g, member{"hooks", marshalArray([]json.RawMessage{hook})})
	out, _ := g.MarshalJSON()
	return out
}

func marshalArray(items []json.RawMessage) json.RawMessage {
	parts := make([][]byte, len(items))
	for i, it := range items {
		parts[i] = it
	}
	return json.RawMessage("[" + string(bytes.Join(parts, []byte(","))) + "]")
}

// indent formats the document the way Claude Code writes its own settings.
func indent(doc object) []byte {
	compact, _ := doc.MarshalJSON()
	var buf bytes.Buffer
	if err := json.Indent(&buf, compact, "", "  "); err != nil {
		return append(compact, '\n')
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}
