package integration

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/zylos/zylos-memory/internal/crashpoint"
	"github.com/zylos/zylos-memory/internal/testutil"
)

// takeAll drains C4's queue the way v0.7.1's dispatcher claims items
// (claimNextItem is not exported: its steps are repeated here, control
// queue first), printing what it would deliver; a conversation is marked
// delivered as after a submitted paste, a control waits for its ack.
const takeAll = `process.env.C4_DISPATCHER_DISABLE_MAIN = '1';
const db = await import('./c4-db.js');
const { getDeliveryContent } = await import('./c4-dispatcher.js');
console.log('pending: ' + db.getPendingControlCount() + ' control, ' + db.getPendingCount() + ' conversation');
for (;;) {
  let item = null;
  const control = db.getNextPendingControl(Math.floor(Date.now() / 1000));
  if (control) {
    if (!db.claimControl(control.id)) throw new Error('claim control ' + control.id);
    item = { ...control, type: 'control' };
  } else {
    const msg = db.getNextPending();
    if (!msg) break;
    if (!db.claimConversation(msg.id)) throw new Error('claim conversation ' + msg.id);
    item = { ...msg, type: 'conversation' };
  }
  console.log(item.type + ' ' + item.id + ' ' + (item.channel || '-') + ' p' + item.priority + ': ' + getDeliveryContent(item));
  if (item.type === 'conversation') db.markDelivered(item.id);
}
db.close();
`

// TestZylosCoreQueueKeysOnNodeDB: the scheduler's slot keys live in a
// table of their own in a c4.db that zylos-core v0.7.1's Node C4 created.
// Node's migrations run on it afterwards without error and without touching
// it, its dispatcher takes the queued sync request like any message, and a
// slot retried after a kill -9 finds its key even after Node delivered the
// message and ran its migrations again: one message per slot.
func TestZylosCoreQueueKeysOnNodeDB(t *testing.T) {
	node := newNodeC4(t, coreV071)
	if err := os.WriteFile(filepath.Join(node.scripts, "take-all.mjs"), []byte(takeAll), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "zylos")
	installChannels(t, dir, "telegram")
	nodeOK := func(script string, args ...string) string {
		t.Helper()
		out, errOut, code := node.run(t, dir, script, args...)
		if code != 0 || errOut != "" {
			t.Fatalf("node %s %v: exit %d\n%s%s", script, args, code, out, errOut)
		}
		return out
	}
	if out := nodeOK("c4-db.js", "init"); !strings.Contains(out, "[C4-DB] Database initialized") {
		t.Fatalf("node init: %s", out)
	}
	nodeOK("c4-db.js", "insert", "in", "telegram", "42", "hello")
	nodeOK("c4-db.js", "insert", "out", "telegram", "42", "hi there")
	dbPath := filepath.Join(dir, "comm-bridge", "c4.db")
	nodeSchema := schemaSQL(t, dbPath)

	// The binary's clock moves one slot per step; the home was set up at 10:30.
	at := func(clock string) testutil.Run {
		return testutil.Run{ZylosDir: dir, Env: []string{"ZYLOS_MEMORY_NOW=2026-03-15T" + clock + "Z"}}
	}
	if res := at("10:30:00").Exec(t, "init"); res.Code != 0 {
		t.Fatalf("init: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	res := at("10:31:00").Exec(t, "scheduler", "trigger", "memory-sync-periodic")
	if res.Code != 0 || !strings.Contains(res.Stdout, "queued C4 message 3 (priority 1)") {
		t.Fatalf("trigger: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	const request = "[Action Required] There are 2 unsummarized conversations (conversation id 1 ~ 2)."
	keyed := func() []string {
		t.Helper()
		db := rawDB(t, dbPath)
		defer db.Close()
		return queryStrings(t, db, `SELECT k.key || ' -> ' || c.id FROM zylos_memory_queue_keys k
			JOIN conversations c ON c.id = k.conversation_id ORDER BY c.id`)
	}
	first := "scheduler:memory-sync-periodic@1773570660 -> 3"
	if got := keyed(); strings.Join(got, "\n") != first {
		t.Fatalf("slot keys after the trigger: %q", got)
	}

	// Node's start-up (schema checks, migrations) accepts the table and
	// leaves its own schema as it made it.
	if out := nodeOK("c4-db.js", "init"); strings.Contains(out, "[C4-DB] Database initialized") {
		t.Errorf("node re-created the database: %s", out)
	}
	if got := schemaSQL(t, dbPath, "zylos_memory_queue_keys"); got != nodeSchema {
		t.Errorf("Node's schema changed:\n%s", testutil.Diff(nodeSchema, got))
	}
	if out := nodeOK("c4-db.js", "unsummarized"); out != "{\n  \"begin_id\": 1,\n  \"end_id\": 3,\n  \"count\": 3\n}\n" {
		t.Errorf("node unsummarized:\n%s", out)
	}
	for _, fetch := range [][]string{{"--unsummarized"}, {"--begin", "3", "--end", "3"}} {
		nodeOut := nodeOK("c4-fetch.js", fetch...)
		res := at("10:31:30").Exec(t, append([]string{"c4", "fetch"}, fetch...)...)
		if !strings.Contains(nodeOut, request) || nodeOut != res.Stdout {
			t.Errorf("c4-fetch.js %v, then c4 fetch:\n%s", fetch, testutil.Diff(nodeOut, res.Stdout))
		}
	}

	// The dispatcher takes a control first, then the priority-1 request
	// before the older priority-3 message, and the control's ack works.
	nodeOK("c4-control.js", "enqueue", "--content", "check status", "--priority", "2")
	taken := nodeOK("take-all.mjs")
	want := []string{
		"pending: 1 control, 2 conversation",
		"control 1 - p2: Meanwhile, check status ---- ack via: node " + filepath.Join(node.scripts, "c4-control.js") + " ack --id 1",
		"conversation 3 system p1: " + request,
		"conversation 1 telegram p3: hello",
	}
	for i, line := range strings.Split(strings.TrimSpace(taken), "\n") {
		if i >= len(want) || !strings.HasPrefix(line, want[i]) {
			t.Fatalf("the dispatcher took, line %d:\n%s\nwant lines starting:\n%s", i+1, taken, strings.Join(want, "\n"))
		}
	}
	if n := len(strings.Split(strings.TrimSpace(taken), "\n")); n != len(want) {
		t.Fatalf("the dispatcher took %d lines, want %d:\n%s", n, len(want), taken)
	}
	nodeOK("c4-control.js", "ack", "--id", "1")
	if out := nodeOK("c4-control.js", "get", "--id", "1"); out != "status=done\n" {
		t.Errorf("control after ack: %q", out)
	}

	// The next slot is killed right after its message and key are
	// written; Node delivers the message and runs its migrations again
	// before the scheduler restarts and retries the slot. The request is
	// no longer pending then, so only the key stops a second one.
	crashed := at("10:32:00")
	crashed.Env = append(crashed.Env, crashpoint.Env+"=scheduler-after-queue")
	if res := crashed.Exec(t, "scheduler", "trigger", "memory-sync-periodic"); res.Code != -1 {
		t.Fatalf("trigger not killed at the crash point: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	second := "scheduler:memory-sync-periodic@1773570720 -> 4"
	if got := keyed(); strings.Join(got, "\n") != first+"\n"+second {
		t.Fatalf("slot keys after the killed trigger: %q", got)
	}
	nodeOK("c4-db.js", "init")
	const request2 = "[Action Required] There are 3 unsummarized conversations (conversation id 1 ~ 3)."
	if taken := nodeOK("take-all.mjs"); !strings.HasPrefix(taken, "pending: 0 control, 1 conversation\nconversation 4 system p1: "+request2) ||
		strings.Count(taken, "\n") != 2 {
		t.Fatalf("the dispatcher took:\n%s", taken)
	}
	if got := schemaSQL(t, dbPath, "zylos_memory_queue_keys"); got != nodeSchema {
		t.Errorf("Node's schema changed:\n%s", testutil.Diff(nodeSchema, got))
	}

	d := startDaemonEnv(t, dir, []string{"ZYLOS_MEMORY_NOW=2026-03-15T10:33:00Z"})
	d.waitLog(t, `msg="task ran" task=memory-sync-periodic`)
	if code := d.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("scheduler run: exit %d\n%s", code, d.logText())
	}
	if !strings.Contains(d.logText(), "queued C4 message 4 before an interruption") {
		t.Errorf("the retry did not find its slot's message:\n%s", d.logText())
	}
	if got := keyed(); strings.Join(got, "\n") != first+"\n"+second {
		t.Errorf("slot keys after the retry: %q", got)
	}
	if out := nodeOK("c4-db.js", "unsummarized"); out != "{\n  \"begin_id\": 1,\n  \"end_id\": 4,\n  \"count\": 4\n}\n" {
		t.Errorf("node unsummarized after the retry (a second request for the slot?):\n%s", out)
	}
	if taken := nodeOK("take-all.mjs"); taken != "pending: 0 control, 0 conversation\n" {
		t.Errorf("the dispatcher found more after the retry:\n%s", taken)
	}
	nodeOut := nodeOK("c4-fetch.js", "--unsummarized")
	if res := at("10:34:00").Exec(t, "c4", "fetch", "--unsummarized"); nodeOut != res.Stdout {
		t.Errorf("c4-fetch.js, then c4 fetch:\n%s", testutil.Diff(nodeOut, res.Stdout))
	}
}
