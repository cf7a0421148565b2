package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/hooks"
	"github.com/zylos/zylos-memory/hooks/register"
)

// initHooks registers the hook entry points in settings.local.json. A
// malformed settings file is reported and left untouched; init then exits
// non-zero so the user knows the hooks are not in place.
func initHooks(e *env, vars ...register.EnvVar) error {
	binary, err := hooks.Executable()
	if err != nil {
		return fmt.Errorf("register hooks: locate this binary: %w", err)
	}
	events := hooks.Events()
	reg, err := register.Hooks(e.layout, binary, events, e.now(), vars...)
	if err != nil {
		return fmt.Errorf("register hooks: %w", err)
	}
	rel := e.relHome
	for _, v := range vars {
		if v.Key == hooks.CaptureEnv {
			state := "off"
			if v.Value != nil {
				state = "on: prompts and final replies go to C4, channel " + hooks.CaptureChannel
			}
			fmt.Fprintf(e.stdout, "prompt capture %s\n", state)
		}
	}
	if !reg.Changed {
		fmt.Fprintf(e.stdout, "hooks already registered in %s\n", rel(e.layout.SettingsFile()))
		return nil
	}
	names := make([]string, len(events))
	for i, ev := range events {
		names[i] = ev.Name
	}
	fmt.Fprintf(e.stdout, "registered hooks in %s: %s\n", rel(e.layout.SettingsFile()), strings.Join(names, ", "))
	if reg.Backup != "" {
		fmt.Fprintf(e.stdout, "saved the previous settings as %s\n", rel(reg.Backup))
	}
	return nil
}

// relHome is a path as shown from the home.
func (e *env) relHome(p string) string {
	if r, err := filepath.Rel(e.layout.ZylosDir, p); err == nil {
		return r
	}
	return p
}

// captureSetting is what --capture-prompts asks of the settings' env:
// set, removed, or (flag not given) nothing.
func captureSetting(c *cli.Context) []register.EnvVar {
	if !c.IsSet("capture-prompts") {
		return nil
	}
	v := register.EnvVar{Key: hooks.CaptureEnv}
	if c.Bool("capture-prompts") {
		on := "1"
		v.Value = &on
	}
	return []register.EnvVar{v}
}
