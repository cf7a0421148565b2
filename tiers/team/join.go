package team

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zylos/zylos-memory/internal/atomicfile"
	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/home"
)

// Join makes the home h a member of the team at url under name: the
// remote must answer, and no other home may publish under that name
// there. A remote given as a relative path is the request's (h.Cwd), as
// git clone reads it. Joining again with the same name keeps the
// membership.
func Join(ctx context.Context, h *home.Home, url, name string) (Config, error) {
	l, environ, now := h.Layout, h.Environ, h.Now()
	if url == "" || strings.HasPrefix(url, "-") {
		return Config{}, fmt.Errorf("team join: %q is not a git remote", url)
	}
	url = localURL(url, h.Cwd)
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

// localURL is url made absolute when it is a relative path to something
// that exists from cwd: the exchange's git runs in its own repository,
// where the user's relative path would lead nowhere. A URL with a scheme,
// or git's host:path form (a ':' before any '/'), is left as it is.
func localURL(url, cwd string) string {
	if filepath.IsAbs(url) || cwd == "" || strings.Contains(url, "://") {
		return url
	}
	if colon := strings.IndexByte(url, ':'); colon >= 0 && !strings.Contains(url[:colon], "/") {
		return url
	}
	abs := filepath.Join(cwd, url)
	if _, err := os.Stat(abs); err != nil {
		return url
	}
	return abs
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
