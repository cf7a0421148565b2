// Package gitleaks finds credentials in a text with gitleaks' default
// rules (github.com/zricethezav/gitleaks/v8): the detector behind the
// zylos-memory-scan binary.
//
// Why gitleaks: its rule set (some 220 rules: cloud keys, tokens of the
// common services, private keys, and a generic key rule held back by
// entropy, stopwords and allowlists) is maintained and widely used, it is
// a Go library rather than a program to shell out to, and the Go module
// proxy serves it. Its rules, entropy thresholds and allowlists are used
// as its authors ship them; a rule we dislike is not ours to patch here.
//
// Why a binary of its own: importing this package costs every process
// that links it 1-2 ms of package initialisation (semver, filetype,
// compression, viper; GODEBUG=inittrace=1), and the hooks start
// zylos-memory whenever the memory service is down; loading the rules
// costs about 25 ms more. Only the scanner pays either, and only when
// something is shared.
//
// This package must not be imported by anything linked into zylos-memory
// or zylos-memory-mcp (a test in cmd/zylos-memory checks).
package gitleaks

import (
	"fmt"
	"runtime/debug"

	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"

	"github.com/zylos/zylos-memory/internal/secretscan"
)

// module is gitleaks' module path, to find its version in the build.
const module = "github.com/zricethezav/gitleaks/v8"

// decodeDepth is how many rounds of decoding (base64, hex, percent
// encoding) gitleaks applies to find a secret hidden in an encoded
// string: its command line's default, which the library leaves at 0.
const decodeDepth = 5

// Detector holds gitleaks' default rules, loaded once.
type Detector struct {
	d *detect.Detector
}

// New loads gitleaks' default rules. It silences gitleaks' logger for the
// whole process: its trace and debug lines quote the secrets they skip.
func New() (*Detector, error) {
	logging.Logger = zerolog.Nop()
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		return nil, fmt.Errorf("load gitleaks' default rules: %w", err)
	}
	d.MaxDecodeDepth = decodeDepth
	// A line marked `gitleaks:allow` was allowed in the repository it
	// came from, by whoever kept that repository; copied into memory and
	// shared with a team, it is no longer theirs to allow. A false
	// positive costs only an entry kept local.
	d.IgnoreGitleaksAllow = true
	// The findings keep the secret only in memory, and only until Detect
	// drops them; redacted, not even there.
	d.Redact = 100
	return &Detector{d: d}, nil
}

// Rules is how many rules the detector holds.
func (d *Detector) Rules() int { return len(d.d.Config.Rules) }

// Detect returns the rule, its description and the 1-based line of each
// match in text; never the secret or the text around it.
func (d *Detector) Detect(text string) []secretscan.Match {
	var matches []secretscan.Match
	for _, f := range d.d.DetectString(text) {
		desc := f.Description
		if desc == "" {
			desc = f.RuleID
		}
		// gitleaks numbers a fragment's lines from 0.
		matches = append(matches, secretscan.Match{Rule: f.RuleID, Description: desc, Line: f.StartLine + 1})
	}
	return matches
}

// Version is the version of gitleaks this binary was built with.
func Version() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == module {
				return dep.Version
			}
		}
	}
	return "unknown"
}
