package guard

import (
	"os"
	"path/filepath"
	"strings"
)

// The Bash guard is conservative: it denies a command only for a clear
// write target (a redirection, or a path argument of a command that
// writes, moves or removes files) inside a records root, and lets
// everything else through, reads above all. What it cannot see (an
// interpreter writing a file, say) the PostToolUse check catches.

// shellCommand is one simple command: its words and the files its output
// redirections write.
type shellCommand struct {
	words   []string
	outputs []string
}

// WriteTargets lists the files a shell command line run in cwd clearly
// writes, moves or removes, with $VAR and ${VAR} expanded by getenv and
// relative paths made absolute, following `cd DIR` ("~" is left for
// Classify).
func WriteTargets(line, cwd string, getenv func(string) string) []string {
	var targets []string
	for _, c := range splitCommands(line, getenv) {
		if len(c.words) == 2 && c.words[0] == "cd" && !strings.HasPrefix(c.words[1], "~") {
			cwd = inDir(cwd, c.words[1])
			continue
		}
		for _, t := range append(c.outputs, argTargets(c.words)...) {
			if !strings.HasPrefix(t, "~") {
				t = inDir(cwd, t)
			}
			targets = append(targets, t)
		}
	}
	return targets
}

func inDir(cwd, p string) string {
	if filepath.IsAbs(p) || cwd == "" {
		return p
	}
	return filepath.Join(cwd, p)
}

// wrappers run the command that follows them.
var wrappers = map[string]bool{"sudo": true, "env": true, "command": true, "nohup": true, "time": true, "exec": true, "nice": true}

// allArgs are commands whose every path argument is written or removed.
var allArgs = map[string]bool{
	"tee": true, "rm": true, "touch": true, "truncate": true, "mkdir": true, "rmdir": true,
	"ln": true, "mv": true, "shred": true, "unlink": true, "chmod": true, "chown": true,
}

// lastArg are copy commands: the last path argument (or -t DIR) is written.
var lastArg = map[string]bool{"cp": true, "install": true, "rsync": true, "scp": true}

func argTargets(words []string) []string {
	for len(words) > 0 {
		w := words[0]
		if wrappers[filepath.Base(w)] || (strings.Contains(w, "=") && !strings.HasPrefix(w, "-") && !strings.Contains(w, "/")) {
			words = words[1:] // VAR=value or a wrapper: the command follows
			continue
		}
		break
	}
	if len(words) == 0 {
		return nil
	}
	name, args := filepath.Base(words[0]), words[1:]
	var paths []string
	inPlace, script := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case name == "dd":
			if strings.HasPrefix(a, "of=") {
				paths = append(paths, strings.TrimPrefix(a, "of="))
			}
		case (name == "sed" || name == "perl") && (a == "-e" || a == "--expression"):
			script = true
			i++ // the script
		case a == "-t" && i+1 < len(args):
			i++
			return []string{args[i]}
		case strings.HasPrefix(a, "--target-directory="):
			return []string{strings.TrimPrefix(a, "--target-directory=")}
		case a == "-i" || strings.HasPrefix(a, "--in-place") || (strings.HasPrefix(a, "-i") && !strings.HasPrefix(a, "--")) ||
			(strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "i") && (name == "sed" || name == "perl")):
			inPlace = true
		case strings.HasPrefix(a, "-") && a != "-":
		default:
			paths = append(paths, a)
		}
	}
	switch {
	case allArgs[name]:
		return paths
	case lastArg[name] && len(paths) > 0:
		return paths[len(paths)-1:]
	case (name == "sed" || name == "perl") && inPlace:
		if !script && len(paths) > 0 {
			paths = paths[1:] // the script
		}
		return paths
	case name == "dd":
		return paths
	}
	return nil
}

// splitCommands lexes a command line into simple commands: quotes and
// backslashes are honoured, ; & | && || ( ) and newlines separate
// commands, and the word after an output redirection (> >> >| &> &>> and
// their fd-numbered forms, but not >&N) is an output. Input redirections
// and here-documents are skipped.
func splitCommands(line string, getenv func(string) string) []shellCommand {
	var out []shellCommand
	var cur shellCommand
	var word strings.Builder
	inWord := false
	redirect := "" // "out" or "in" when the next word is a redirection target
	flushWord := func() {
		if !inWord {
			return
		}
		w := os.Expand(word.String(), getenv)
		switch redirect {
		case "out":
			cur.outputs = append(cur.outputs, w)
		case "in":
		default:
			cur.words = append(cur.words, w)
		}
		redirect = ""
		word.Reset()
		inWord = false
	}
	flushCommand := func() {
		flushWord()
		if len(cur.words) > 0 || len(cur.outputs) > 0 {
			out = append(out, cur)
		}
		cur = shellCommand{}
	}
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case ch == '\\' && i+1 < len(line):
			i++
			if line[i] != '\n' {
				word.WriteByte(line[i])
				inWord = true
			}
		case ch == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				j = len(line) - i - 1
			}
			word.WriteString(line[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case ch == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
					i++
				}
				word.WriteByte(line[i])
			}
			inWord = true
		case ch == '#' && !inWord:
			for i < len(line) && line[i] != '\n' {
				i++
			}
			flushCommand()
		case ch == ' ' || ch == '\t':
			flushWord()
		case ch == '\n' || ch == ';' || ch == '|' || ch == '(' || ch == ')' || ch == '{' && !inWord || ch == '}' && !inWord:
			flushCommand()
		case ch == '&':
			if i+1 < len(line) && line[i+1] == '>' { // &> and &>>
				flushWord()
				i++
				for i+1 < len(line) && (line[i+1] == '>' || line[i+1] == '|') {
					i++
				}
				redirect = "out"
				continue
			}
			flushCommand()
		case ch == '>' || ch == '<':
			if inWord && isDigits(word.String()) {
				word.Reset() // the fd number of 2> or 1>>
				inWord = false
			}
			flushWord()
			kind := "out"
			if ch == '<' {
				kind = "in"
			}
			for i+1 < len(line) && (line[i+1] == '>' || line[i+1] == '<' || line[i+1] == '|') {
				i++
			}
			if i+1 < len(line) && line[i+1] == '&' { // >&2: a descriptor, no file
				i++
				for i+1 < len(line) && (isDigits(line[i+1:i+2]) || line[i+1] == '-') {
					i++
				}
				continue
			}
			redirect = kind
		default:
			word.WriteByte(ch)
			inWord = true
		}
	}
	flushCommand()
	return out
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
