package integration

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// TestZylosCoreNodeOnBinaryDB: on a fresh home the binary creates c4.db on
// first use, and zylos-core v0.7.1's Node C4 then works on it (it crashed
// with "no such table: control_queue" on the v2-era schema) and agrees
// with the binary on what it reads.
func TestZylosCoreNodeOnBinaryDB(t *testing.T) {
	node := newNodeC4(t, coreV071)
	dir := filepath.Join(t.TempDir(), "zylos")
	installChannels(t, dir, "telegram")
	r := testutil.Run{ZylosDir: dir}
	for _, cmd := range [][]string{
		args("c4 receive --channel telegram --endpoint 42 --content hello"),
		args("c4 receive --no-reply --priority 1 --content status"),
	} {
		if res := r.Exec(t, cmd...); res.Code != 0 {
			t.Fatalf("%v: %s", cmd, res.Stderr)
		}
	}
	out, errOut, code := node.run(t, dir, "c4-db.js", "unsummarized")
	if code != 0 || out != "{\n  \"begin_id\": 1,\n  \"end_id\": 2,\n  \"count\": 2\n}\n" {
		t.Fatalf("node c4-db.js unsummarized: exit %d\n%s%s", code, out, errOut)
	}
	for _, fetch := range [][]string{{"--unsummarized"}, {"--begin", "1", "--end", "2"}} {
		nodeOut, nodeErr, nodeCode := node.run(t, dir, "c4-fetch.js", fetch...)
		res := r.Exec(t, append([]string{"c4", "fetch"}, fetch...)...)
		if nodeOut != res.Stdout || nodeCode != res.Code {
			t.Errorf("c4 fetch %v differs from c4-fetch.js:\n%s", fetch, testutil.Diff(nodeOut+nodeErr, res.Stdout+res.Stderr))
		}
	}
	if out, errOut, code := node.run(t, dir, "c4-checkpoint.js", "create", "2", "--summary", "from node"); code != 0 {
		t.Fatalf("node checkpoint: %s%s", out, errOut)
	}
	res := r.Exec(t, "c4", "fetch", "--unsummarized")
	if res.Stdout != "No unsummarized conversations.\n" {
		t.Errorf("after node's checkpoint: %q %q", res.Stdout, res.Stderr)
	}
	res = r.Exec(t, "c4", "checkpoint", "latest")
	if !strings.Contains(res.Stdout, `"summary": "from node"`) {
		t.Errorf("checkpoint latest: %s", res.Stdout)
	}
}

// TestZylosCoreBinaryOnNodeDB: a database zylos-core v0.7.1 created serves
// the binary's commands, whose writes leave its schema exactly as it was.
func TestZylosCoreBinaryOnNodeDB(t *testing.T) {
	node := newNodeC4(t, coreV071)
	dir := filepath.Join(t.TempDir(), "zylos")
	installChannels(t, dir, "lark")
	if out, errOut, code := node.run(t, dir, "c4-db.js", "init"); code != 0 || !strings.Contains(out, "[C4-DB] Database initialized") {
		t.Fatalf("node init: exit %d %s%s", code, out, errOut)
	}
	dbPath := filepath.Join(dir, "comm-bridge", "c4.db")
	before := schemaSQL(t, dbPath)
	r := testutil.Run{ZylosDir: dir}
	for _, cmd := range [][]string{
		args("c4 receive --channel lark --endpoint ou_1 --content hi"), args("c4 fetch --unsummarized"),
		args("c4 checkpoint 1 --summary binary"), args("c4 session-init"),
	} {
		if res := r.Exec(t, cmd...); res.Code != 0 || res.Stderr != "" {
			t.Fatalf("%v: exit %d %s", cmd, res.Code, res.Stderr)
		}
	}
	if after := schemaSQL(t, dbPath); after != before {
		t.Errorf("the binary changed v0.7.1's schema:\n%s", testutil.Diff(before, after))
	}
	out, _, _ := node.run(t, dir, "c4-checkpoint.js", "latest")
	if !strings.Contains(out, `"summary": "binary"`) {
		t.Errorf("node does not see the binary's checkpoint: %s", out)
	}
}

// TestZylosCoreUpgradeOfV2EraDB: a v2-era database (the Node C4 of
// d28f8c3, or an earlier version of this binary) crashes v0.7.1's Node C4;
// after one write by the binary it does not, and its rows are kept.
func TestZylosCoreUpgradeOfV2EraDB(t *testing.T) {
	old := newNodeC4(t, coreV2Era)
	node := newNodeC4(t, coreV071)
	dir := filepath.Join(t.TempDir(), "zylos")
	if _, errOut, code := old.run(t, dir, "c4-db.js", "insert", "in", "telegram", "42", "before the upgrade"); code != 0 {
		t.Fatal(errOut)
	}
	dbPath := filepath.Join(dir, "comm-bridge", "c4.db")
	probe := filepath.Join(t.TempDir(), "zylos")
	os.MkdirAll(filepath.Join(probe, "comm-bridge"), 0o755)
	data, _ := os.ReadFile(dbPath)
	os.WriteFile(filepath.Join(probe, "comm-bridge", "c4.db"), data, 0o644)
	if _, errOut, code := node.run(t, probe, "c4-db.js", "unsummarized"); code == 0 || !strings.Contains(errOut, "no such table: control_queue") {
		t.Errorf("v0.7.1 on an unconverted v2-era database: exit %d, want its crash (%q)", code, errOut)
	}
	if res := (testutil.Run{ZylosDir: dir}).Exec(t, "c4", "receive", "--no-reply", "--content", "after"); res.Code != 0 {
		t.Fatal(res.Stderr)
	}
	out, errOut, code := node.run(t, dir, "c4-db.js", "unsummarized")
	if code != 0 || !strings.Contains(out, `"count": 2`) {
		t.Errorf("v0.7.1 after the upgrade: exit %d\n%s%s", code, out, errOut)
	}
}

// TestZylosCoreV2EraParity compares the two cases of the v2-era Node C4
// that used to differ: session-init under the threshold (an empty line
// after the last record) and c4-checkpoint.js without arguments.
func TestZylosCoreV2EraParity(t *testing.T) {
	old := newNodeC4(t, coreV2Era)
	for _, summary := range []string{"Decisions: Agent Teams.", ""} {
		dir, _ := c4Home(t, sampleConvs[:3], summary)
		r := testutil.Run{ZylosDir: dir}
		for _, c := range []struct {
			script string
			args   []string
		}{
			{"c4-session-init.js", args("c4 session-init")},
			{"c4-checkpoint.js", args("c4 checkpoint")},
			{"c4-fetch.js", args("c4 fetch")},
		} {
			nodeOut, nodeErr, nodeCode := old.run(t, dir, c.script)
			res := r.Exec(t, c.args...)
			if nodeOut != res.Stdout || nodeErr != res.Stderr || nodeCode != res.Code {
				t.Errorf("%v differs from %s:\n%s", c.args, c.script,
					testutil.Diff(nodeOut+"--- stderr\n"+nodeErr, res.Stdout+"--- stderr\n"+res.Stderr))
			}
		}
	}
}

// schemaSQL is the database's schema as SQLite stores it, leaving out the
// tables named in except (and their indexes).
func schemaSQL(t *testing.T, dbPath string, except ...string) string {
	t.Helper()
	db := rawDB(t, dbPath)
	defer db.Close()
	rows, err := db.Query(`SELECT tbl_name, type || ' ' || name || ': ' || COALESCE(sql, '') FROM sqlite_master ORDER BY type, name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var table, s string
		rows.Scan(&table, &s)
		if !slices.Contains(except, table) {
			b.WriteString(s + "\n")
		}
	}
	return b.String()
}
