package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/zylos/zylos-memory/dashboard"
	"github.com/zylos/zylos-memory/doctor"
	"github.com/zylos/zylos-memory/hooks/resident"
	"github.com/zylos/zylos-memory/scheduler"
	"github.com/zylos/zylos-memory/tiers/journal"
)

func newSchedulerRunCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "run the scheduler in the foreground (the memory service)",
		Description: "One instance per ZYLOS_DIR. SIGINT/SIGTERM stop it after the run in progress\n" +
			"(a second signal exits at once, status 1); SIGHUP re-reads the tasks.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "log-format", Value: "text", Usage: "text or json"},
			&cli.StringFlag{Name: "ui-addr", Usage: "host:port of the dashboard (default: a loopback port derived from the home; off: no dashboard)"},
		},
		Action: runScheduler,
	}
}

func runScheduler(c *cli.Context) error {
	debug.SetGCPercent(100) // the service lives long: the default pace, not a command's
	raiseFileLimit()
	e, err := envFrom(c)
	if err != nil {
		return err
	}
	if err := e.home.Settings.TeamPeriodErr; err != nil {
		return err
	}
	log, err := newLogger(c.String("log-format"), e)
	if err != nil {
		return err
	}
	lock, err := scheduler.AcquireLock(e.layout)
	if err != nil {
		return err
	}
	defer lock.Release()
	store, err := scheduler.Open(e.layout)
	if err != nil {
		return err
	}
	defer store.Close()
	home, _ := os.UserHomeDir()
	d, err := scheduler.NewDaemon(e.layout, store, e.now, log, home)
	if err != nil {
		return err
	}
	// The service also answers the hooks of its home; without the socket
	// they answer in their own processes, only slower.
	if hookServer, err := resident.Listen(e.layout, log); err != nil {
		log.Warn("hooks answer in their own processes", "err", err)
	} else {
		go hookServer.Serve()
		defer hookServer.Close()
	}
	if ui := serveDashboard(c.String("ui-addr"), e, log); ui != nil {
		defer ui.Close()
	}
	ctx, wake := handleSignals(log)
	d.Wake = wake
	ctx, stop := context.WithCancel(ctx)
	// External edits reach the journal within seconds, and the journal
	// its remote within a minute.
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		journal.Open(e.layout).Watch(ctx, journal.WatchOptions{Log: log})
	}()
	// The search index is built at start and kept current.
	indexed := make(chan struct{})
	go func() {
		defer close(indexed)
		scheduler.KeepSearchIndex(ctx, e.layout, log, scheduler.IndexPoll)
	}()
	// The team's memories come and go every period.
	teamed := make(chan struct{})
	go func() {
		defer close(teamed)
		scheduler.KeepTeam(ctx, e.reopen, secretScanner(), log, e.home.Settings.TeamPeriod)
	}()
	err = d.Run(ctx)
	// A git the watch started must not outlive the service.
	stop()
	<-watched
	<-indexed
	<-teamed
	return err
}

// raiseFileLimit sets the service's soft limit of open files to its hard
// one (Go's runtime stops one short of it): the service holds the hook
// socket's connections and the dashboard's.
func raiseFileLimit() {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil && lim.Cur < lim.Max {
		lim.Cur = lim.Max
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
}

// serveDashboard starts the dashboard unless addr is "off"; a dashboard
// that cannot start is logged and the service runs on without it.
func serveDashboard(addr string, e *env, log *slog.Logger) *dashboard.Server {
	if err := dashboard.Unserved(e.layout); err != nil {
		log.Warn("dashboard: the address a previous service left", "err", err)
	}
	if addr == dashboard.Off {
		return nil
	}
	l := e.layout
	ui, err := dashboard.Listen(addr, dashboard.Options{Layout: l, Log: log, Now: e.now, Open: e.reopen,
		Health: func() []doctor.Check { return checks(context.Background(), e, e.reopen()) }})
	if err != nil {
		log.Warn("dashboard not served", "err", err)
		return nil
	}
	if !ui.Loopback {
		log.Warn("dashboard listens beyond the loopback interface: anyone who reaches it with the token reads this memory", "addr", ui.Addr())
	}
	log.Info("dashboard", "url", ui.URL())
	go func() {
		if err := ui.Serve(); err != nil {
			log.Warn("dashboard stopped", "err", err)
		}
	}()
	return ui
}

func newLogger(format string, e *env) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(e.stderr, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(e.stderr, nil)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", format)
}

// handleSignals cancels the context on the first SIGINT/SIGTERM (the run in
// progress finishes), exits at once on the second, and turns SIGHUP into a
// wake-up that re-reads the tasks.
func handleSignals(log *slog.Logger) (context.Context, <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	wake := make(chan struct{}, 1)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		stopping := false
		for sig := range sigs {
			switch {
			case sig == syscall.SIGHUP:
				select {
				case wake <- struct{}{}:
				default:
				}
			case stopping:
				log.Warn("second signal, exiting now", "signal", sig.String())
				os.Exit(1)
			default:
				log.Info("stopping", "signal", sig.String())
				stopping = true
				cancel()
			}
		}
	}()
	return ctx, wake
}
