package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/hooks"
	"github.com/zylos/zylos-memory/hooks/register"
	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers"
)

// legacyScripts are the Node hooks this binary replaces; left registered
// beside ours they inject the same context twice.
var legacyScripts = []string{"session-start-inject.js", "c4-session-init.js", "c4-threshold-check.js"}

func checkHooks(l tiers.Layout) []Check {
	data, err := regfile.ReadFile(l.SettingsFile())
	if err != nil {
		return []Check{line(Fail, "hooks", fmt.Sprintf("%v (run: zylos-memory init)", err))}
	}
	found, err := register.Entries(data)
	if err != nil {
		return []Check{line(Fail, "hooks", (&register.MalformedError{Path: l.SettingsFile(), Err: err}).Error())}
	}
	var checks []Check
	for _, ev := range hooks.Events() {
		checks = append(checks, checkEvent(l, ev, found[ev.Name]))
	}
	for _, script := range legacyScripts {
		if bytes.Contains(data, []byte(script)) {
			checks = append(checks, line(Warn, "hooks", fmt.Sprintf("the Node hook %s is still registered in %s; it repeats what zylos-memory injects", script, l.SettingsFile())))
		}
	}
	return checks
}

func checkEvent(l tiers.Layout, ev hooks.Event, entries []register.Entry) Check {
	name := "hook " + ev.Command
	switch len(entries) {
	case 0:
		return line(Fail, name, fmt.Sprintf("not registered for %s (run: zylos-memory init)", ev.Name))
	case 1:
	default:
		return line(Warn, name, fmt.Sprintf("registered %d times for %s (run: zylos-memory init)", len(entries), ev.Name))
	}
	e := entries[0]
	binary := e.Binary()
	if st, err := os.Stat(binary); err != nil || st.IsDir() || st.Mode().Perm()&0o111 == 0 {
		return line(Fail, name, fmt.Sprintf("%s is not an executable (run: zylos-memory init)", binary))
	}
	timeout := e.Timeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	elapsed, err := probe(e.Command, ev, timeout)
	if err != nil {
		return line(Fail, name, err.Error())
	}
	if !e.ForHome(l.ZylosDir) {
		return line(Warn, name, fmt.Sprintf("answers, but for another home than %s: %s (run: zylos-memory init)", l.ZylosDir, e.Command))
	}
	return line(OK, name, fmt.Sprintf("answered in %d ms (timeout %v)", elapsed.Milliseconds(), timeout))
}

// probe runs a registered command as Claude Code does (through the shell,
// the sample payload on stdin) and checks its answer.
func probe(command string, ev hooks.Event, timeout time.Duration) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Stdin = strings.NewReader(samplePayload(ev))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	//processglobal: a hook probe is timed on the wall clock
	start := time.Now()
	err := cmd.Run()
	elapsed := time.Since(start)
	if ctx.Err() != nil {
		return elapsed, fmt.Errorf("no answer within its timeout of %v", timeout)
	}
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 2 && ev.Name == hooks.Stop.Name) {
		return elapsed, fmt.Errorf("failed: %v: %s", err, firstLine(stderr.String()))
	}
	if out := bytes.TrimSpace(stdout.Bytes()); len(out) > 0 && !json.Valid(out) {
		return elapsed, fmt.Errorf("answer is not JSON: %s", firstLine(string(out)))
	}
	return elapsed, nil
}

// samplePayload is a harmless input for ev: it reads memory and writes
// nothing (the tool hooks get a path outside the records root).
func samplePayload(ev hooks.Event) string {
	in := map[string]any{"session_id": "zylos-memory-doctor", "cwd": os.TempDir(), "hook_event_name": ev.Name}
	switch ev.Name {
	case hooks.SessionStart.Name:
		in["source"] = "startup"
	case hooks.UserPromptSubmit.Name:
		in["prompt"] = "zylos-memory doctor checks that this hook answers"
	case hooks.Stop.Name:
		in["stop_hook_active"] = true
	case hooks.PreToolUse.Name, hooks.PostToolUse.Name:
		in["tool_name"] = "Write"
		in["tool_input"] = map[string]string{"file_path": os.TempDir() + "/zylos-memory-doctor-probe.txt"}
	}
	data, _ := json.Marshal(in)
	return string(data)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
