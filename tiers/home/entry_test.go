package home

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// throughHome are the calls that make a memory change, or open what
// makes one, which the entry points leave to Home: by import path, the
// names Home offers instead.
var throughHome = map[string]map[string]string{
	"github.com/zylos/zylos-memory/tiers/journal": {"Open": "Home.Journal", "CommandChange": "Home.Command"},
	"github.com/zylos/zylos-memory/tiers/records": {"Write": "Home.Save"},
	"github.com/zylos/zylos-memory/tiers/bridge":  {"Ingest": "Home.Ingest", "Memory": "Home.Bridge"},
}

// reachPast are the uses left, each with why: file: the calls.
var reachPast = map[string]string{
	// The service's watch outlives every request; it commits what no
	// request did, on the wall clock.
	"cmd/zylos-memory/scheduler_run.go": "journal.Open",
}

// TestEntryPointsGoThroughTheHome keeps the front ends (everything above
// tiers/) from assembling a memory change themselves.
func TestEntryPointsGoThroughTheHome(t *testing.T) {
	root := filepath.Join("..", "..")
	found := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "tiers" || rel == "integration" || rel == "e2e" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || strings.HasPrefix(rel, "internal/testutil/") {
			return nil
		}
		uses, err := callsIn(path)
		if len(uses) > 0 {
			found[rel] = uses
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel, uses := range found {
		if got := strings.Join(uses, " "); got != reachPast[rel] {
			t.Errorf("%s calls %s past the home (use %s), allowed %q", rel, got, instead(uses), reachPast[rel])
		}
	}
	for rel, want := range reachPast {
		if found[rel] == nil {
			t.Errorf("%s no longer calls %s: drop it from reachPast", rel, want)
		}
	}
}

func callsIn(path string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, err
	}
	names := map[string]map[string]string{}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if calls, ok := throughHome[p]; ok {
			name := p[strings.LastIndex(p, "/")+1:]
			if imp.Name != nil {
				name = imp.Name.Name
			}
			names[name] = calls
		}
	}
	var uses []string
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Obj == nil {
				if _, ok := names[pkg.Name][sel.Sel.Name]; ok {
					uses = append(uses, pkg.Name+"."+sel.Sel.Name)
				}
			}
		}
		return true
	})
	return uses, nil
}

func instead(uses []string) string {
	var out []string
	for _, u := range uses {
		pkg, name, _ := strings.Cut(u, ".")
		for p, calls := range throughHome {
			if strings.HasSuffix(p, "/"+pkg) && calls[name] != "" {
				out = append(out, calls[name])
			}
		}
	}
	return strings.Join(out, ", ")
}
