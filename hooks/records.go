package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/hooks/guard"
	"github.com/zylos/zylos-memory/hooks/triage"
	"github.com/zylos/zylos-memory/internal/hookstate"
	"github.com/zylos/zylos-memory/internal/jsstring"
	c4sync "github.com/zylos/zylos-memory/sync"
	"github.com/zylos/zylos-memory/tiers/fulltext"
	"github.com/zylos/zylos-memory/tiers/records"
)

// The structured records layer's hooks: the same functions as the
// `records triage|guard|validate|retrieve` commands, on the home's default
// records root.

// stop is the triage of the transcript tail and the final reply. What to
// save blocks the stop with Claude Code's JSON answer,
// {"decision":"block","reason":...} and exit 0, which Claude Code does not
// log as a hook error as it does exit 2; anything else lets the agent stop.
func stop(ctx context.Context, env Env, in Input) (Answer, error) {
	if !json.Valid(in.Raw) {
		return Answer{}, nil // the runner has said why; nothing to triage
	}
	var note string
	if err := capture(ctx, env, c4sync.DirectionOut, in.SessionID, in.LastAssistantMessage); err != nil {
		note = fmt.Sprintf("zylos-memory hook %s: capture reply: %v\n", Stop.Command, err)
	}
	var msg bytes.Buffer
	code := triage.Run(ctx, bytes.NewReader(in.Raw), &msg, triage.Options{
		Config:   triageConfig(env),
		Home:     env.getenv("HOME"),
		StateDir: env.Layout.StateDir(),
		Command:  env.invocation(),
		Now:      env.Now,
		Timeout:  remaining(ctx),
	})
	if code == triage.ExitBlock {
		return Answer{Output: StopBlock{Decision: "block", Reason: msg.String()}, Message: note}, nil
	}
	return Answer{Message: note + msg.String()}, nil
}

// StopBlock is the Stop hook's answer that keeps the agent working, with
// reason as its next instruction.
type StopBlock struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

// preToolUse denies direct writes into the records root, by a file tool
// or a shell command.
func preToolUse(_ context.Context, env Env, in Input) (Answer, error) {
	if ans := guard.Decide(in.ToolName, in.ToolInput, in.Cwd, guardOptions(env)); ans != nil {
		return Answer{Output: ans}, nil
	}
	return Answer{}, nil
}

// postToolUse validates a record written past the guard and quarantines it
// when invalid. After a shell command, which may write files the guard
// could not see, every record changed since the last such check is
// validated.
func postToolUse(_ context.Context, env Env, in Input) (Answer, error) {
	var rep guard.Report
	if in.ToolName == "Bash" {
		rep = checkChangedRecords(env)
	} else {
		rep = guard.Check(guard.FilePath(in.ToolInput), in.Cwd, env.Now(), guardOptions(env))
	}
	ans := Answer{Message: rep.Warning}
	if rep.Quarantined != "" {
		if rel, err := env.home().Journal().Rel(rep.Quarantined, ""); err == nil {
			ans.Wrote = append(ans.Wrote, rel)
		}
	}
	if rep.Answer != nil {
		ans.Output = rep.Answer
		return ans, nil
	}
	if in.ToolName == "Bash" {
		return ans, nil
	}
	// An edit of a reference file is ingested into the records.
	feedback, notes, written, err := ingestEdit(env, in)
	if err != nil {
		return Answer{}, err
	}
	ans.Wrote = append(ans.Wrote, written...)
	if feedback != nil {
		ans.Output = feedback
	}
	ans.Message = strings.TrimSpace(ans.Message + "\n" + notes)
	return ans, nil
}

// retrieve is the <memory-context> block of memories related to the
// prompt; problems only mean fewer memories, said on stderr.
func retrieve(ctx context.Context, env Env, in Input) (text, warnings string, err error) {
	var warn bytes.Buffer
	room := contextBudget - jsstring.Len(longestTrigger(env.Layout.Kind())) - len("\n\n")
	text, err = env.home().Retrieve(ctx, in.Prompt, room, fulltext.BackgroundReindex(env.Binary, env.Layout.ZylosDir), &warn)
	return text, strings.TrimRight(warn.String(), "\n"), err
}

func triageConfig(env Env) records.TriageConfig {
	cfg, _ := records.LoadConfig(env.Layout.RecordsDir()) // defaults on error, as `records triage`
	return cfg.Triage
}

func guardOptions(env Env) guard.Options {
	return guard.Options{Root: env.Layout.RecordsDir(), Home: env.getenv("HOME"), Command: env.invocation(), Cwd: env.Cwd, Getenv: env.getenv}
}

// checkedStamp is the time of the last check of changed records (Unix
// nanoseconds, wall clock: it is compared with file times), per home.
const checkedStamp = "records-checked"

// firstCheckWindow is how far back the first check of a home looks.
const firstCheckWindow = 10 * time.Minute

func checkChangedRecords(env Env) guard.Report {
	//processglobal: the wall clock, which file modification times are compared with
	start := time.Now()
	since := start.Add(-firstCheckWindow)
	if ns, ok := hookstate.ReadInt(env.Layout.StateDir(), checkedStamp); ok {
		since = time.Unix(0, ns)
	}
	rep := guard.CheckChanged(env.Layout.RecordsDir(), since, env.Now())
	_ = hookstate.WriteInt(env.Layout.StateDir(), checkedStamp, start.UnixNano())
	return rep
}

// remaining is the time left before ctx's deadline, for callees that take
// a timeout rather than a context.
func remaining(ctx context.Context) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		return time.Until(dl)
	}
	return DefaultDeadline
}
