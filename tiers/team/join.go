package team

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers"
)

// Join makes the home l a member of the team at url under name: the
// remote must answer, and no other home may publish under that name
// there. Joining again with the same name keeps the membership.
func Join(ctx context.Context, l tiers.Layout, environ []string, url, name string, now time.Time) (Config, error) {
	if url == "" || strings.HasPrefix(url, "-") {
		return Config{}, fmt.Errorf("team join: %q is not a git remote", url)
	}
	if !ValidName(name) {
		return Config{}, fmt.Errorf("team join: %q cannot name a home: use lowercase letters, digits, '.', '_' or '-' (at most 63)", name)
	}
	cfg, err := ReadConfig(l)
	if err == nil && (cfg.URL != url || cfg.Name != name) {
		return cfg, fmt.Errorf("team join: this home is in the team at %s as %q already: zylos-memory team leave first", cfg.URL, cfg.Name)
	}
	if err != nil {
		id, err := homeID(l)
		if err != nil {
			return Config{}, err
		}
		cfg = Config{URL: url, Name: name, HomeID: id, Joined: now.UTC().Format(time.RFC3339)}
	}
	r, err := openRepo(ctx, repoPath(l), environ)
	if err != nil {
		return Config{}, err
	}
	out, err := r.git(ctx, "ls-remote", "--refs", url, teamRefs+"*")
	if err != nil {
		return Config{}, fmt.Errorf("team join: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		_, ref, ok := strings.Cut(line, "\t")
		if !ok || ref != teamRefs+name {
			continue
		}
		if _, err := r.git(ctx, "fetch", "--no-tags", "--quiet", url, "+"+ref+":"+fetchedRefs+name); err != nil {
			return Config{}, fmt.Errorf("team join: %v", err)
		}
		s := &syncer{repo: r}
		if id := s.homeIDOf(r.ref(fetchedRefs + name)); id != cfg.HomeID {
			return Config{}, fmt.Errorf("team join: another home is in this team as %q: choose another name with --name", name)
		}
	}
	if err := writeJSON(configPath(l), cfg); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// homeID is the home's id: the one it had, else a new one, kept.
func homeID(l tiers.Layout) (string, error) {
	if data, err := regfile.ReadFileLimit(homeIDPath(l), 64); err == nil {
		if id := strings.TrimSpace(string(data)); len(id) == 16 {
			return id, nil
		}
	}
	raw := make([]byte, 8)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	id := hex.EncodeToString(raw)
	if err := os.MkdirAll(dir(l), 0o700); err != nil {
		return "", err
	}
	return id, atomicfile.WriteFile(homeIDPath(l), []byte(id+"\n"), 0o600)
}

// Leave ends the membership of the home l. Its memories stay, those from
// other homes with their origins; its published ref stays on the remote
// for the others (they keep what they took in any case).
func Leave(l tiers.Layout) (Config, error) {
	cfg, err := ReadConfig(l)
	if err != nil {
		return cfg, err
	}
	return cfg, os.Remove(configPath(l))
}
