// Command lint enforces the rule the memory service's hook answers rest
// on: code outside cmd/ reads no process global. The service answers a
// hook for another process, with that process's environment, working
// directory and clock; a library call that reads its own instead (or
// changes a setting for every goroutine of the service) answers wrongly
// without a test noticing. Such calls are passed down as values from cmd/.
//
// A call that truly means the process's own (a deadline on the wall
// clock, the service's own timezone) says so on its line or the line
// above: `//processglobal: <why>`.
//
// Usage: go run ./internal/lint [dir]
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// forbidden are the calls that read or change a process global, by
// import path and name.
var forbidden = map[string]map[string]string{
	"os": {
		"Getenv": "the environment", "LookupEnv": "the environment", "Environ": "the environment",
		"Setenv": "the environment", "Unsetenv": "the environment",
		"Getwd": "the working directory", "Chdir": "the working directory",
		"UserHomeDir": "the environment (HOME)",
	},
	"time":          {"Now": "the clock"},
	"runtime/debug": {"SetGCPercent": "the collector's pace", "SetMemoryLimit": "the collector's limit"},
}

// directive marks a call that means the process's own global.
const directive = "//processglobal:"

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	problems, err := check(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lint:", err)
		os.Exit(2)
	}
	downward, err := checkLayers(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lint:", err)
		os.Exit(2)
	}
	for _, p := range downward {
		fmt.Println(p)
	}
	if len(downward) > 0 {
		fmt.Fprintf(os.Stderr, "lint: %d import(s) run upward: the leaves (internal/) import no layer, the memory (tiers/, sync/) no front end, the front ends not cmd/\n", len(downward))
	}
	for _, p := range problems {
		fmt.Println(p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "lint: %d call(s) use a process global outside cmd/: pass it down from cmd/ as a value, or say why the process's own is meant with %s <why>\n", len(problems), directive)
	}
	if len(problems) > 0 || len(downward) > 0 {
		os.Exit(1)
	}
}

// check lists the forbidden calls in the non-test Go files under root,
// outside cmd/, that no directive explains.
func check(root string) ([]string, error) {
	var problems []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel == "cmd" || name == "testdata" || (rel != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		found, err := checkFile(path, rel)
		problems = append(problems, found...)
		return err
	})
	sort.Strings(problems)
	return problems, err
}

func checkFile(path, rel string) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	for _, dir := range testSupport {
		if strings.HasPrefix(rel, dir) {
			return nil, nil
		}
	}
	names := map[string]map[string]string{} // local name of an import -> its forbidden calls
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		calls, ok := forbidden[p]
		if !ok {
			continue
		}
		name := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = calls
	}
	if len(names) == 0 {
		return nil, nil
	}
	explained := map[int]bool{}
	for _, group := range f.Comments {
		for _, c := range group.List {
			if why, ok := strings.CutPrefix(c.Text, directive); ok && strings.TrimSpace(why) != "" {
				line := fset.Position(c.Slash).Line
				explained[line], explained[line+1] = true, true
			}
		}
	}
	var problems []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		pkg, ok := sel.X.(*ast.Ident)
		if !ok || pkg.Obj != nil { // a local variable, not the package
			return true
		}
		what, ok := names[pkg.Name][sel.Sel.Name]
		if !ok {
			return true
		}
		pos := fset.Position(sel.Pos())
		if !explained[pos.Line] {
			problems = append(problems, fmt.Sprintf("%s:%d: %s.%s uses %s of this process", rel, pos.Line, pkg.Name, sel.Sel.Name, what))
		}
		return true
	})
	return problems, nil
}

// testSupport are the packages only tests import: they run in a test's
// process, never in the service.
var testSupport = []string{"internal/lint/", "internal/testutil/", "fixture/", "integration/", "e2e/"}
