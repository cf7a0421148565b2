package main

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/zylos/zylos-memory/internal/regfile"
)

// The folders of the repository are its layers, and imports run downward
// only: the leaves under internal/ import no other layer; the memory
// itself (tiers/, templates/) imports leaves; the C4 pipeline (sync/)
// reads and writes the memory and implements what the tiers declare of
// it (fulltext.Conversations), so the tiers never import it; the front
// ends (the hooks, the service, the doctor, the dashboard, the MCP
// server) import all of these; cmd/ wires them. Tests and the test
// support under fixture/, integration/ and e2e/ may import anything.
var layers = []struct {
	rank    int
	folders []string
}{
	{0, []string{"internal"}},
	{1, []string{"tiers", "templates"}},
	{2, []string{"sync"}},
	{3, []string{"hooks", "scheduler", "doctor", "dashboard", "mcpserver"}},
	{4, []string{"cmd"}},
}

// rankOf is the layer of a folder relative to the repository root; false
// for test support and folders of no layer.
func rankOf(rel string) (int, bool) {
	top, _, _ := strings.Cut(rel, "/")
	for _, l := range layers {
		for _, f := range l.folders {
			if top == f {
				return l.rank, true
			}
		}
	}
	return 0, false
}

// checkLayers lists each import, in the non-test Go files under root, of
// a package in a higher layer than the importing file's.
func checkLayers(root string) ([]string, error) {
	module, err := modulePath(root)
	if err != nil {
		return nil, err
	}
	var problems []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || (rel != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rank, ok := rankOf(rel)
		if !ok {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			inside, ok := strings.CutPrefix(p, module+"/")
			if !ok {
				continue
			}
			if to, ok := rankOf(inside); ok && to > rank {
				problems = append(problems, fmt.Sprintf("%s: imports %s, a layer above it", rel, inside))
			} else if !ok {
				problems = append(problems, fmt.Sprintf("%s: imports %s, which is test support or of no layer", rel, inside))
			}
		}
		return nil
	})
	sort.Strings(problems)
	return problems, err
}

// modulePath reads the module's path from root's go.mod.
func modulePath(root string) (string, error) {
	data, err := regfile.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.TrimSpace(p), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", filepath.Join(root, "go.mod"))
}
