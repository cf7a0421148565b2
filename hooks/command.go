package hooks

import "strings"

// Command is the shell command that runs ev's entry point for a home.
func Command(binary, zylosDir string, ev Event) string {
	return Invocation(binary, zylosDir) + " hook " + ev.Command
}

// Invocation is the start of every command run for a home: the binary and
// --zylos-dir, quoted for a shell. A command the hooks advise starts with
// it, so it works verbatim from any working directory and environment.
func Invocation(binary, zylosDir string) string {
	return ShellQuote(binary) + " --zylos-dir " + ShellQuote(zylosDir)
}

// ShellQuote is s quoted for a shell, as the commands of the hooks quote
// the binary and the home: a word of safe characters as it is, anything
// else in single quotes.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+:=@,%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
