package main

import (
	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/hooks"
	"github.com/zylos/zylos-memory/hooks/guard"
)

func newRecordsValidateCommand() *cli.Command {
	return &cli.Command{
		Name: "validate",
		Usage: "PostToolUse hook (Write/Edit): validate a record written directly into the records root, " +
			"quarantine it as <path>.invalid.<unix> when invalid; always exit 0",
		UsageText: `echo '{"tool_input":{"file_path":"..."}}' | zylos-memory records validate [--root R]`,
		Flags:     []cli.Flag{recallRootFlag()},
		Action: asChange("records validate", "", func(c *cli.Context) error {
			return runToolHook(c, "validate", func(in hooks.Input, e *env, opts guard.Options) (any, string) {
				rep := guard.Check(guard.FilePath(in.ToolInput), in.Cwd, e.now(), opts)
				if rep.Answer == nil {
					return nil, rep.Warning
				}
				return rep.Answer, rep.Warning
			})
		}),
	}
}
