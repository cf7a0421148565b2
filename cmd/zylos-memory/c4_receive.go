package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/urfave/cli/v2"

	c4sync "github.com/zylos/zylos-memory/sync"
)

func c4ReceiveCommand() *cli.Command {
	return &cli.Command{
		Name:  "receive",
		Usage: "queue an inbound message into C4 (direction in, status pending)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "channel", Usage: "source channel (default system with --no-reply)"},
			&cli.StringFlag{Name: "endpoint", Usage: "endpoint id within the channel (chat id, user id)"},
			&cli.IntFlag{Name: "priority", Value: 3, Usage: "1 urgent, 2 high, 3 normal"},
			&cli.BoolFlag{Name: "no-reply", Usage: "a message that expects no reply (channel defaults to system)"},
			&cli.BoolFlag{Name: "require-idle", Usage: "deliver only when the agent is idle"},
			&cli.StringFlag{Name: "content", Usage: "message text; - reads it from stdin (for large messages)"},
		},
		Action: c4Receive,
	}
}

func c4Receive(c *cli.Context) error {
	e, path, err := c4Env(c)
	if err != nil {
		return err
	}
	m := c4sync.Message{
		Channel: c.String("channel"), Endpoint: c.String("endpoint"), Content: c.String("content"),
		Priority: c.Int("priority"), RequireIdle: c.Bool("require-idle"),
	}
	if c.Bool("no-reply") && m.Channel == "" {
		m.Channel = "system"
	}
	if m.Content == "-" {
		data, err := io.ReadAll(e.stdin)
		if err != nil {
			return fmt.Errorf("read content from stdin: %w", err)
		}
		m.Content = string(data)
	}
	switch {
	case m.Channel == "":
		return usageExit(c, "Error: --channel is required (or --no-reply)")
	case m.Content == "":
		return usageExit(c, "Error: --content is required")
	case m.Priority < 1 || m.Priority > 3:
		return usageExit(c, fmt.Sprintf("Error: --priority must be 1, 2 or 3 (got %d)", m.Priority))
	}
	intake := c4sync.Intake{
		SkillsDir:      filepath.Join(e.layout.ClaudeDir(), "skills"),
		AttachmentsDir: filepath.Join(filepath.Dir(path), "attachments"),
		Now:            e.now,
		AsGiven:        !e.home.Kind.C4.StoredRoute,
	}
	accepted, err := intake.Accept(m, c.Bool("no-reply"))
	if err != nil {
		return err
	}
	if err := firstUse(e, path); err != nil {
		return err
	}
	db, err := c4sync.OpenWrite(path)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetClock(e.now)
	id, err := db.Enqueue(accepted.Message)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(e.stdout, intake.Answer(id, accepted))
	return err
}
