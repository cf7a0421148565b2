package main

import (
	"context"
	"errors"

	"github.com/zylos/zylos-memory/hooks"
	"github.com/zylos/zylos-memory/internal/secretscan"
	"github.com/zylos/zylos-memory/tiers/team"
)

// secretScanner is the team's secret scan: the scanner binary installed
// beside this one (its rules stay out of this binary's start). Without
// it nothing new is shared.
func secretScanner() team.Scanner {
	return func(ctx context.Context, texts map[string]string) (map[string]string, error) {
		self, err := hooks.Executable()
		if err != nil {
			return nil, err
		}
		exe, err := secretscan.Binary(self)
		if err != nil {
			return nil, err
		}
		items := make([]secretscan.Item, 0, len(texts))
		for key, text := range texts {
			items = append(items, secretscan.Item{ID: key, Text: text})
		}
		found, err := secretscan.Scan(ctx, exe, items)
		if err != nil {
			return nil, err
		}
		rules := map[string]string{}
		for _, f := range found {
			if f.Rule == "" {
				return nil, errors.New("the scanner named no rule")
			}
			if _, ok := rules[f.ID]; !ok {
				rules[f.ID] = f.Rule
			}
		}
		return rules, nil
	}
}
