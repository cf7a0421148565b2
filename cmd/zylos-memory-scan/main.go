// Command zylos-memory-scan is the secret scanner team memory runs before
// an entry leaves the machine: it reads one request (texts, as JSON) on
// stdin and writes the credentials gitleaks' rules find in them (rule and
// line, never the secret) as JSON on stdout; see package secretscan for
// the wire. zylos-memory runs it from beside itself: it is a binary of its
// own so that gitleaks' package initialisation is paid by the scanner
// alone, not by every hook process of zylos-memory.
//
// Exit status: 0 with an answer; 2 on a request it refuses (one line on
// stderr); 1 when it cannot load its rules or write the answer.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/zylos/zylos-memory/internal/secretscan"
	"github.com/zylos/zylos-memory/internal/secretscan/gitleaks"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "%s: internal error: %v\n", secretscan.ScannerName, r)
			code = 70
		}
	}()
	flags := flag.NewFlagSet(secretscan.ScannerName, flag.ContinueOnError)
	flags.SetOutput(io.Discard) // errors are reported below, in one line
	version := flags.Bool("version", false, "print the protocol this scanner speaks and exit")
	if err := flags.Parse(args); errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stdout, "Usage: %s < request.json > answer.json\n", secretscan.ScannerName)
		flags.SetOutput(stdout)
		flags.PrintDefaults()
		return 0
	} else if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", secretscan.ScannerName, err)
		return 2
	}
	if *version {
		fmt.Fprintf(stdout, "%s protocol %d (gitleaks %s)\n", secretscan.ScannerName, secretscan.Protocol, gitleaks.Version())
		return 0
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q; the request comes on stdin\n", secretscan.ScannerName, flags.Arg(0))
		return 2
	}
	detector, err := gitleaks.New()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", secretscan.ScannerName, err)
		return 1
	}
	err = secretscan.Serve(ctx, stdin, stdout, detector.Detect)
	var bad *secretscan.RequestError
	switch {
	case errors.As(err, &bad):
		fmt.Fprintf(stderr, "%s: %v\n", secretscan.ScannerName, err)
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v\n", secretscan.ScannerName, err)
		return 1
	}
	return 0
}
