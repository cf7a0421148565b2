package scheduler

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// AddOptions are the flags of `scheduler add`; exactly one of Cron, Every,
// In and At is set.
type AddOptions struct {
	Prompt      string
	Cron        string
	Every       string
	In          string
	At          string
	Priority    int
	RequireIdle bool
	Name        string
	Timezone    string
	MissWindow  string
}

// AddUser validates opts, stores the new user task and returns it.
func AddUser(s *Store, opts AddOptions, now time.Time, home *time.Location) (*Task, error) {
	t, err := opts.task(now, home)
	if err != nil {
		return nil, err
	}
	if t.Name == "" {
		if t.Name, err = s.UniqueName("task-" + now.In(home).Format("20060102-150405")); err != nil {
			return nil, err
		}
	}
	if err := s.Add(t, now, home); err != nil {
		return nil, err
	}
	return s.Get(t.Name)
}

func (o AddOptions) task(now time.Time, home *time.Location) (*Task, error) {
	if strings.TrimSpace(o.Prompt) == "" {
		return nil, errors.New("a prompt is required: scheduler add \"PROMPT\" --cron EXPR|--every D|--in D|--at TIME")
	}
	t := &Task{Name: o.Name, Kind: KindUser, Prompt: o.Prompt, Timezone: o.Timezone,
		Priority: o.Priority, RequireIdle: o.RequireIdle, MissWindow: DefaultMissWindow}
	loc, err := t.Location(home)
	if err != nil {
		return nil, err
	}
	if t.Schedule, err = o.schedule(now, loc); err != nil {
		return nil, err
	}
	if o.MissWindow != "" {
		if t.MissWindow, err = ParseDuration(o.MissWindow); err != nil {
			return nil, fmt.Errorf("--miss-window: %w", err)
		}
	}
	return t, nil
}

// schedule turns the one schedule flag given into a stored spec.
func (o AddOptions) schedule(now time.Time, loc *time.Location) (string, error) {
	given := 0
	for _, v := range []string{o.Cron, o.Every, o.In, o.At} {
		if v != "" {
			given++
		}
	}
	if given != 1 {
		return "", errors.New("give exactly one of --cron, --every, --in, --at")
	}
	switch {
	case o.Cron != "":
		if _, err := ParseSchedule(o.Cron, loc); err != nil {
			return "", err
		}
		return o.Cron, nil
	case o.Every != "":
		return EverySpec(o.Every)
	case o.In != "":
		d, err := ParseDuration(o.In)
		if err != nil {
			return "", fmt.Errorf("--in: %w", err)
		}
		return OneShotSpec(now.Add(d).Truncate(time.Second)), nil
	}
	at, err := ParseAt(o.At, now, loc)
	if err != nil {
		return "", fmt.Errorf("--at: %w", err)
	}
	if !at.After(now) {
		return "", fmt.Errorf("--at %s is in the past", o.At)
	}
	return OneShotSpec(at), nil
}
