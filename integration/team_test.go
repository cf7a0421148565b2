package integration

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
)

// teamHome is one home of a team: its own zylos dir, joined under name.
type teamHome struct {
	name  string
	zylos string
	r     testutil.Run
}

func bareTeamRemote(t testing.TB) (dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	dir = filepath.Join(t.TempDir(), "team.git")
	if out, err := exec.Command("git", "init", "--bare", "--quiet", dir).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return dir
}

// gitDaemon serves the bare repositories under base on the loopback, push
// included, and answers the URL of repo.
func gitDaemon(t *testing.T, base, repo string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("git", "daemon", "--export-all", "--enable=receive-pack", "--reuseaddr",
		"--listen=127.0.0.1", fmt.Sprintf("--port=%d", port), "--base-path="+base, base)
	// Its own process group: the daemon's children (one upload-pack or
	// receive-pack a connection) go with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Skipf("git daemon: %v", err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Sprintf("git://127.0.0.1:%d/%s", port, repo)
}

func joinTeam(t testing.TB, url, name string) *teamHome {
	t.Helper()
	testutil.ScanBinary(t) // beside the binary, as installed
	zylos := filepath.Join(t.TempDir(), name)
	th := &teamHome{name: name, zylos: zylos, r: testutil.Run{ZylosDir: zylos, Timeout: 2 * time.Minute}}
	if res := th.r.Exec(t, "init"); res.Code != 0 {
		t.Fatalf("init: %+v", res)
	}
	if res := th.r.Exec(t, "team", "join", url, "--name", name); res.Code != 0 {
		t.Fatalf("%s: team join: %+v", name, res)
	}
	return th
}

func (th *teamHome) sync(t testing.TB) map[string]any {
	t.Helper()
	res := th.r.Exec(t, "team", "sync", "--json")
	if res.Code != 0 {
		t.Fatalf("%s: team sync: %+v", th.name, res)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(res.Stdout), &rep); err != nil {
		t.Fatalf("%s: team sync answered %q", th.name, res.Stdout)
	}
	return rep
}

// write creates a record of category with id through `records write`.
func (th *teamHome) write(t testing.TB, category, id, title, text string) {
	t.Helper()
	folder := map[string]string{"decision": "decisions", "preference": "preferences"}[category]
	content := map[string]any{"status": "accepted", "context": "ctx", "decision": text, "rationale": []string{"why"}}
	if category == "preference" {
		content = map[string]any{"topic": title, "value": text, "reason": "asked", "strength": "default"}
	}
	doc := map[string]any{"schema_version": "1.0", "category": category, "id": id, "title": title,
		"tags": []string{"team"}, "content": content}
	data, _ := json.Marshal(doc)
	input := filepath.Join(th.zylos, "memory", "records", ".staging", id+".json")
	if err := os.MkdirAll(filepath.Dir(input), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(input, data, 0o600); err != nil {
		t.Fatal(err)
	}
	res := th.r.Exec(t, "records", "write", "--action", "create", "--category", category,
		"--target", filepath.Join("memory", "records", folder, id+".json"), "--input", input)
	if res.Code != 0 {
		t.Errorf("%s: records write %s: %+v", th.name, id, res)
	}
}

// ids lists the shared records of a home by category/id, and fails on a
// title two records share.
func (th *teamHome) ids(t *testing.T) map[string]bool {
	t.Helper()
	got, titles := map[string]bool{}, map[string]string{}
	for _, folder := range []string{"decisions", "preferences", "projects", "notes"} {
		files, _ := filepath.Glob(filepath.Join(th.zylos, "memory", "records", folder, "*.json"))
		for _, f := range files {
			var rec struct{ ID, Title string }
			data, _ := os.ReadFile(f)
			if err := json.Unmarshal(data, &rec); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if other, dup := titles[rec.Title]; dup {
				t.Errorf("%s: %q twice: %s and %s", th.name, rec.Title, other, rec.ID)
			}
			titles[rec.Title] = rec.ID
			got[folder+"/"+rec.ID] = true
		}
	}
	return got
}

// remoteObjects is every object of a bare repository, as text.
func remoteObjects(t *testing.T, bare string) string {
	t.Helper()
	cmd := exec.Command("git", "--git-dir="+bare, "cat-file", "--batch-all-objects", "--batch")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cat-file: %v", err)
	}
	return string(out)
}

// Three homes, each recording 50 decisions and preferences at once while
// they sync, over git daemon on the loopback: after two rounds of syncs
// every home holds all 150, none twice, each from its origin; a secret
// never reaches the remote, nor core.md or the session log.
func TestTeamThreeHomesShareOverGitDaemon(t *testing.T) {
	base := t.TempDir()
	bare := filepath.Join(base, "team.git")
	if out, err := exec.Command("git", "init", "--bare", "--quiet", bare).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	url := gitDaemon(t, base, "team.git")
	var homes []*teamHome
	for _, name := range []string{"laptop", "server", "worker"} {
		homes = append(homes, joinTeam(t, url, name))
	}
	const secret = "ghp_R7zq9Xk2Lm4Pw8Vn3Bt6Yc1Hd5Jf0Gs2Qa9E"
	const private = "core-only-marker-7f3a"
	for _, th := range homes {
		testutil.WriteFile(t, filepath.Join(th.zylos, "memory", "core.md"), "# Core\n\n"+private+" "+th.name+"\n")
		testutil.WriteFile(t, filepath.Join(th.zylos, "memory", "sessions", "current.md"), "# Session\n\n- "+private+" session of "+th.name+"\n")
	}
	var wg sync.WaitGroup
	for _, th := range homes {
		wg.Add(2)
		go func(th *teamHome) { // its agent records, 4 writers at a time
			defer wg.Done()
			sem := make(chan struct{}, 4)
			var inner sync.WaitGroup
			for i := 0; i < 50; i++ {
				inner.Add(1)
				sem <- struct{}{}
				go func(i int) {
					defer inner.Done()
					defer func() { <-sem }()
					cat := "decision"
					if i%2 == 1 {
						cat = "preference"
					}
					id := fmt.Sprintf("%s-%s-%02d", th.name, cat, i)
					th.write(t, cat, id, fmt.Sprintf("%s %s %d", th.name, cat, i), "text "+id)
				}(i)
			}
			inner.Wait()
		}(th)
		go func(th *teamHome) { // and syncs meanwhile, as the service does
			defer wg.Done()
			for i := 0; i < 3; i++ {
				th.r.Exec(t, "team", "sync")
			}
		}(th)
	}
	wg.Wait()
	homes[0].write(t, "decision", "deploy-token", "Deploy token", "use "+secret+" for deploys")
	for round := 0; round < 2; round++ {
		for _, th := range homes {
			th.sync(t)
		}
	}
	for _, th := range homes {
		ids := th.ids(t)
		want := 150
		if th == homes[0] {
			want = 151 // and its secret
		}
		if len(ids) != want {
			t.Errorf("%s holds %d shared records, want %d", th.name, len(ids), want)
		}
		for _, other := range homes {
			for i := 0; i < 50; i += 7 {
				cat := map[bool]string{true: "decisions", false: "preferences"}[i%2 == 0]
				single := strings.TrimSuffix(cat, "s")
				if !ids[fmt.Sprintf("%s/%s-%s-%02d", cat, other.name, single, i)] {
					t.Errorf("%s lacks %s's %s %d", th.name, other.name, single, i)
				}
			}
		}
	}
	// The origin is in the record and the markdown.
	data := testutil.ReadFile(t, filepath.Join(homes[1].zylos, "memory", "records", "decisions", "laptop-decision-00.json"))
	if !strings.Contains(data, `"origin": "laptop"`) {
		t.Errorf("no origin in the record:\n%s", data)
	}
	md := testutil.ReadFile(t, filepath.Join(homes[1].zylos, "memory", "reference", "decisions.md"))
	if !strings.Contains(md, "<!-- team: from laptop") {
		t.Errorf("no origin in the markdown:\n%.2000s", md)
	}
	// Search and recall say where a memory came from.
	if res := homes[1].r.Exec(t, "search", "text laptop-decision-00"); !strings.Contains(res.Stdout, "(from laptop)") {
		t.Errorf("search does not show the origin: %+v", res)
	}
	objects := remoteObjects(t, bare)
	if strings.Contains(objects, secret) || strings.Contains(objects, "Deploy token") {
		t.Error("the credential reached the remote")
	}
	if strings.Contains(objects, private) {
		t.Error("core.md or a session log reached the remote")
	}
	if !strings.Contains(objects, "text laptop-decision-00") {
		t.Error("the remote lacks what it should hold")
	}
	status := homes[0].r.Exec(t, "team", "status")
	if !strings.Contains(status.Stdout, "kept local: decision/deploy-token (secret: github-pat)") {
		t.Errorf("status does not tell the secret:\n%s", status.Stdout)
	}
	if md := testutil.ReadFile(t, filepath.Join(homes[0].zylos, "memory", "reference", "decisions.md")); !strings.Contains(md, "<!-- team: private (secret: github-pat) -->") {
		t.Errorf("the entry is not marked private in the file")
	}
	// Each home's changes from the others are journal commits naming them.
	log := gitIn(t, filepath.Join(homes[2].zylos, "memory"), "log", "--format=%B")
	if !strings.Contains(log, "Zylos-Source: team") || !strings.Contains(log, "Zylos-Home: laptop") {
		t.Errorf("no team commit in the journal:\n%.1500s", log)
	}
}

// The same entry edited in two homes ends with both texts kept and one
// conflict shown in each.
func TestTeamConflictKeepsBothTexts(t *testing.T) {
	url := bareTeamRemote(t)
	a, b := joinTeam(t, url, "a"), joinTeam(t, url, "b")
	session := a.r
	session.Env = append(session.Env, "CLAUDE_CODE_SESSION_ID=sess-of-a")
	(&teamHome{name: "a", zylos: a.zylos, r: session}).write(t, "decision", "db-choice", "Database choice", "sqlite")
	a.sync(t)
	b.sync(t)
	// b's journal names the home and the session the entry came from.
	if log := gitIn(t, filepath.Join(b.zylos, "memory"), "log", "-1", "--format=%B"); !strings.Contains(log, "Zylos-Source: team") ||
		!strings.Contains(log, "Zylos-Home: a") || !strings.Contains(log, "Zylos-Session: sess-of-a") {
		t.Errorf("b's journal commit:\n%s", log)
	}
	edit := func(th *teamHome, text string) {
		path := filepath.Join(th.zylos, "memory", "reference", "decisions.md")
		md := testutil.ReadFile(t, path)
		if !strings.Contains(md, "sqlite") {
			t.Fatalf("%s: the entry is not in the markdown:\n%s", th.name, md)
		}
		testutil.WriteFile(t, path, strings.Replace(md, "sqlite", text, 1))
		if res := th.r.Exec(t, "records", "ingest"); res.Code != 0 {
			t.Fatalf("ingest: %+v", res)
		}
	}
	edit(a, "postgres")
	edit(b, "mysql")
	for round := 0; round < 3; round++ {
		a.sync(t)
		b.sync(t)
	}
	var shown []string
	for _, th := range []*teamHome{a, b} {
		res := th.r.Exec(t, "team", "conflicts", "--json")
		var cs []struct {
			Key      string
			Conflict struct {
				Home    string
				Content map[string]any
			}
		}
		if err := json.Unmarshal([]byte(res.Stdout), &cs); err != nil || len(cs) != 1 {
			t.Fatalf("%s: conflicts %q %v", th.name, res.Stdout, err)
		}
		kept := cs[0].Conflict.Content["decision"]
		var rec struct{ Content map[string]any }
		json.Unmarshal([]byte(testutil.ReadFile(t, filepath.Join(th.zylos, "memory", "records", "decisions", "db-choice.json"))), &rec)
		entry := rec.Content["decision"]
		if entry == kept || (entry != "postgres" && entry != "mysql") || (kept != "postgres" && kept != "mysql") {
			t.Errorf("%s: entry %v, kept %v", th.name, entry, kept)
		}
		shown = append(shown, fmt.Sprint(entry, "/", kept))
	}
	if shown[0] != shown[1] {
		t.Errorf("the homes show different entries: %v", shown)
	}
	// Resolving is an ordinary edit; the resolution travels.
	path := filepath.Join(a.zylos, "memory", "reference", "decisions.md")
	md := testutil.ReadFile(t, path)
	for _, text := range []string{"postgres", "mysql"} {
		md = strings.Replace(md, "**Decision:** "+text, "**Decision:** postgres, agreed", 1)
	}
	testutil.WriteFile(t, path, md)
	a.r.Exec(t, "records", "ingest")
	a.sync(t)
	b.sync(t)
	for _, th := range []*teamHome{a, b} {
		if res := th.r.Exec(t, "team", "conflicts", "--json"); strings.TrimSpace(res.Stdout) != "[]" {
			t.Errorf("%s: conflict not resolved: %s", th.name, res.Stdout)
		}
	}
}

// A remote that cannot be reached is told, once, in one line, and loses
// nothing; a remote that rewrites a member's ref loses nothing either.
func TestTeamFaultsLoseNothing(t *testing.T) {
	bare := bareTeamRemote(t)
	a, b := joinTeam(t, bare, "a"), joinTeam(t, bare, "b")
	for i := 0; i < 5; i++ {
		b.write(t, "decision", fmt.Sprintf("b-%d", i), fmt.Sprintf("B decision %d", i), "text")
	}
	b.sync(t)
	a.sync(t)
	if n := len(a.ids(t)); n != 5 {
		t.Fatalf("a holds %d, want 5", n)
	}
	// Someone force-pushes b's ref to an empty tree: a keeps all five.
	scratch := t.TempDir()
	gitIn(t, scratch, "init", "--quiet")
	gitIn(t, scratch, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "--allow-empty", "--quiet", "-m", "rewrite")
	gitIn(t, scratch, "push", "--force", "--quiet", bare, "HEAD:refs/zylos/team/b")
	res := a.r.Exec(t, "team", "sync")
	if n := len(a.ids(t)); n != 5 {
		t.Errorf("after a rewritten ref a holds %d, want 5 (%+v)", n, res)
	}
	if !strings.Contains(res.Stderr, `names the home ""`) {
		t.Errorf("the rewritten ref is not named: %+v", res)
	}
	b.sync(t) // b publishes its own again
	if out := gitIn(t, scratch, "ls-remote", bare, "refs/zylos/team/b"); strings.Contains(out, gitIn(t, scratch, "rev-parse", "HEAD")) {
		t.Error("b did not put its ref back")
	}
	// The ref deleted: nothing deleted here.
	gitIn(t, scratch, "push", "--quiet", bare, ":refs/zylos/team/b")
	a.sync(t)
	if n := len(a.ids(t)); n != 5 {
		t.Errorf("after a deleted ref a holds %d, want 5", n)
	}
	if st := a.r.Exec(t, "team", "status").Stdout; !strings.Contains(st, "member b: 5 entries, gone from the remote") {
		t.Errorf("status does not tell the gone member:\n%s", st)
	}
	// Unreachable: one line, exit 1, memory intact.
	if err := os.Rename(bare, bare+".away"); err != nil {
		t.Fatal(err)
	}
	a.write(t, "decision", "offline", "Written offline", "kept")
	res = a.r.Exec(t, "team", "sync")
	if res.Code != 1 || strings.Count(res.Stderr, "zylos-memory: team sync:") != 1 {
		t.Errorf("unreachable remote: %+v", res)
	}
	if n := len(a.ids(t)); n != 6 {
		t.Errorf("a holds %d after an unreachable sync, want 6", n)
	}
	os.Rename(bare+".away", bare)
	a.sync(t)
	b.sync(t)
	if !b.ids(t)["decisions/offline"] {
		t.Error("the entry written offline did not travel once the remote came back")
	}
	// A remote that rejects the push: told in one line, nothing lost, and
	// published once it takes pushes again.
	hook := filepath.Join(bare, "hooks", "pre-receive")
	testutil.WriteFile(t, hook, "#!/bin/sh\necho 'pushes are closed today' >&2\nexit 1\n")
	if err := os.Chmod(hook, 0o755); err != nil {
		t.Fatal(err)
	}
	a.write(t, "decision", "rejected", "Written while the remote refuses", "kept")
	res = a.r.Exec(t, "team", "sync")
	if res.Code != 1 || strings.Count(res.Stderr, "zylos-memory: team sync:") != 1 || !a.ids(t)["decisions/rejected"] {
		t.Errorf("a rejecting remote: %+v", res)
	}
	os.Remove(hook)
	a.sync(t)
	b.sync(t)
	if !b.ids(t)["decisions/rejected"] {
		t.Error("the entry written while the remote refused did not travel once it took pushes")
	}
	// Two homes of one name: the second is refused at join.
	c := filepath.Join(t.TempDir(), "c")
	r := testutil.Run{ZylosDir: c}
	r.Exec(t, "init")
	if res := r.Exec(t, "team", "join", bare, "--name", "a"); res.Code == 0 || !strings.Contains(res.Stderr, "another home is in this team as \"a\"") {
		t.Errorf("a second home named a joined: %+v", res)
	}
}

// A member's ref holding a malformed entry or one over the size limit:
// those are skipped and named, the rest applied.
func TestTeamMalformedEntriesAreSkipped(t *testing.T) {
	bare := bareTeamRemote(t)
	a := joinTeam(t, bare, "a")
	scratch := t.TempDir()
	gitIn(t, scratch, "init", "--quiet")
	write := func(rel, text string) { testutil.WriteFile(t, filepath.Join(scratch, rel), text) }
	write("home.json", `{"name": "m", "home_id": "x", "format": 1}`)
	good := `{"id": "good-one", "category": "decision", "title": "Good one", "tags": ["t"], "record_status": "active",
		"content": {"status": "accepted", "context": "c", "decision": "d", "rationale": ["r"]}, "origin": "m", "rev": 1}`
	write("records/decisions/good-one.json", good)
	write("records/decisions/bad-json.json", "{not json")
	write("records/decisions/wrong-id.json", strings.Replace(good, "good-one", "other", 1))
	write("records/decisions/huge.json", strings.Replace(good, `"d"`, `"`+strings.Repeat("x", 300<<10)+`"`, 1))
	write("records/sessions/s.json", strings.Replace(good, "decision", "session_summary", 1))
	gitIn(t, scratch, "add", "-A")
	gitIn(t, scratch, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "--quiet", "-m", "m")
	gitIn(t, scratch, "push", "--quiet", bare, "HEAD:refs/zylos/team/m")
	res := a.r.Exec(t, "team", "sync")
	if res.Code != 0 {
		t.Fatalf("sync: %+v", res)
	}
	for _, named := range []string{"bad-json.json", "wrong-id.json", "huge.json", "records/sessions/s.json"} {
		if !strings.Contains(res.Stderr, named) {
			t.Errorf("%s is not named:\n%s", named, res.Stderr)
		}
	}
	if ids := a.ids(t); len(ids) != 1 || !ids["decisions/good-one"] {
		t.Errorf("a holds %v, want only the good one", ids)
	}
}

// kill -9 in the middle of a sync that applies many entries leaves the
// records and the journal consistent, and the next sync finishes.
func TestTeamKill9DuringSync(t *testing.T) {
	bare := bareTeamRemote(t)
	a, b := joinTeam(t, bare, "a"), joinTeam(t, bare, "b")
	for i := 0; i < 40; i++ {
		b.write(t, "decision", fmt.Sprintf("b-%02d", i), fmt.Sprintf("B decision %d", i), "text")
	}
	b.sync(t)
	for _, delay := range []time.Duration{300 * time.Millisecond, 700 * time.Millisecond, 1200 * time.Millisecond} {
		cmd := exec.Command(testutil.Binary(t), "team", "sync")
		cmd.Env = a.r.Environ()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	}
	a.sync(t)
	if n := len(a.ids(t)); n != 40 {
		t.Errorf("a holds %d after the kills, want 40", n)
	}
	if res := a.r.Exec(t, "records", "index", "--validate"); res.Code != 0 {
		t.Errorf("index: %+v", res)
	}
	gitIn(t, filepath.Join(a.zylos, "memory"), "fsck", "--no-progress")
	if res := a.r.Exec(t, "records", "ingest"); !strings.Contains(res.Stdout, "Nothing to ingest") {
		t.Errorf("records and markdown disagree after the kills: %+v", res)
	}
}

// The memory service syncs the team every period: an entry written in
// one home reaches the other within two periods, with no command run.
func TestTeamServiceSyncsEveryPeriod(t *testing.T) {
	bare := bareTeamRemote(t)
	a, b := joinTeam(t, bare, "a"), joinTeam(t, bare, "b")
	period := []string{"ZYLOS_MEMORY_TEAM_PERIOD=10s", "ZYLOS_MEMORY_LAYOUT=v2"}
	startDaemonEnv(t, a.zylos, period, "--ui-addr=off")
	startDaemonEnv(t, b.zylos, period, "--ui-addr=off")
	a.write(t, "decision", "from-a", "Written in a", "travels by itself")
	for deadline := time.Now().Add(40 * time.Second); !b.ids(t)["decisions/from-a"]; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the entry did not reach b within two periods: %s", b.r.Exec(t, "team", "status").Stdout)
		}
	}
	if md := testutil.ReadFile(t, filepath.Join(b.zylos, "memory", "reference", "decisions.md")); !strings.Contains(md, "<!-- team: from a -->") {
		t.Errorf("b's markdown lacks the entry's origin:\n%s", md)
	}
}

// A remote given as a path relative to where the command runs is that
// path, as git clone reads it, though the exchange's git runs elsewhere.
func TestTeamJoinRelativePath(t *testing.T) {
	bare := bareTeamRemote(t)
	testutil.ScanBinary(t)
	zylos := filepath.Join(t.TempDir(), "h")
	r := testutil.Run{ZylosDir: zylos, Dir: filepath.Dir(bare)}
	r.Exec(t, "init")
	res := r.Exec(t, "team", "join", "./"+filepath.Base(bare), "--name", "h")
	if res.Code != 0 || !strings.Contains(res.Stdout, "joined the team at "+bare+" as h") {
		t.Fatalf("join by a relative path: %+v", res)
	}
	if res := (testutil.Run{ZylosDir: zylos}).Exec(t, "team", "sync"); res.Code != 0 {
		t.Errorf("a sync from elsewhere: %+v", res)
	}
}
