package recall

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zylos/zylos-memory/internal/testutil"
)

func TestSelectCandidate(t *testing.T) {
	tests := []struct {
		name, category, info, event string
		index                       string // replaces index.md when set
		wantPath                    string // "" = no candidate
		wantPre                     string // "" = null
		wantCUD                     string
		wantVetoes, wantHints       []string
		wantWarning                 string
	}{
		{name: "decision candidate, delete disallowed", category: "decision", info: "JWT authentication tokens",
			wantPath: "memory/records/decisions/use-jwt-auth.json", wantCUD: "UPDATE",
			wantVetoes: []string{"Cannot DELETE decision (triage-initiated)"},
			wantHints:  []string{"1 candidate found (score=7)"}},
		{name: "below threshold creates", category: "decision", info: "completely unrelated topic xyz",
			wantPre: "CREATE", wantCUD: "CREATE"},
		{name: "lifecycle without candidate is noop", category: "decision", info: "unrelated topic xyz", event: "resolved",
			wantPre: "NOOP", wantCUD: "NOOP",
			wantHints: []string{"lifecycle_event=resolved with no matching candidate; NOOP"}},
		{name: "decision reversed", category: "decision", info: "JWT authentication tokens", event: "reversed",
			wantPath: "memory/records/decisions/use-jwt-auth.json", wantCUD: "UPDATE",
			wantVetoes: []string{"Cannot DELETE decision (triage-initiated)"},
			wantHints: []string{"1 candidate found (score=7)",
				"lifecycle_event=reversed present but DELETE disallowed; consider UPDATE"}},
		{name: "tech debt resolved", category: "tech_debt", info: "legacy sessions cleanup done", event: "resolved",
			wantPath: "memory/records/tech-debt/legacy-session-cleanup.json", wantCUD: "UPDATE_OR_DELETE",
			wantHints: []string{"1 candidate found (score=7)", "lifecycle_event=resolved suggests DELETE if eligible"}},
		{name: "tag alone reaches the threshold", category: "constraint", info: "auth",
			wantPath: "memory/records/constraints/auth-rate-limit.json", wantCUD: "UPDATE_OR_DELETE",
			wantHints: []string{"1 candidate found (score=5)"}},
		{name: "other categories ignored", category: "runbook", info: "JWT authentication tokens",
			wantPre: "CREATE", wantCUD: "CREATE"},
		{name: "tie broken by path", category: "decision", info: "kafka",
			index: "- [DECISION] Kafka b -> memory/records/decisions/b.json #tags:kafka\n" +
				"- [DECISION] Kafka a -> memory/records/decisions/a.json #tags:kafka\n",
			wantPath: "memory/records/decisions/a.json", wantCUD: "UPDATE",
			wantVetoes:  []string{"Cannot DELETE decision (triage-initiated)"},
			wantHints:   []string{"1 candidate found (score=5)"},
			wantWarning: "WARNING: cannot read candidate"},
		{name: "path not json", category: "decision", info: "kafka",
			index:   "- [DECISION] Kafka -> memory/records/decisions/a.txt #tags:kafka\n",
			wantPre: "CREATE", wantCUD: "CREATE", wantWarning: "not a .json file"},
		{name: "path outside root", category: "tech_debt", info: "kafka", event: "resolved",
			index:   "- [TECH_DEBT] Kafka -> ../../../etc/x.json #tags:kafka\n",
			wantPre: "NOOP", wantCUD: "NOOP", wantWarning: "candidate path rejected",
			wantHints: []string{"lifecycle_event=resolved with no matching candidate; NOOP"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := sampleHome(t)
			if tt.index != "" {
				os.WriteFile(filepath.Join(h.root, "index.md"), []byte("# Memory Index\n\n"+tt.index), 0o644)
			}
			var warn bytes.Buffer
			res, err := SelectCandidate(CandidateOptions{Root: h.root, Category: tt.category, NewInfo: tt.info,
				LifecycleEvent: tt.event, Warn: &warn})
			if err != nil {
				t.Fatal(err)
			}
			gotPath := ""
			if res.Candidate != nil {
				gotPath = res.Candidate.Path
			}
			gotPre := ""
			if res.PreAction != nil {
				gotPre = *res.PreAction
			}
			if gotPath != tt.wantPath || gotPre != tt.wantPre || res.StructuralCUD != tt.wantCUD {
				t.Errorf("candidate %q pre %q cud %q; want %q %q %q", gotPath, gotPre, res.StructuralCUD,
					tt.wantPath, tt.wantPre, tt.wantCUD)
			}
			if !slices.Equal(res.Vetoes, orEmpty(tt.wantVetoes)) || !slices.Equal(res.Hints, orEmpty(tt.wantHints)) {
				t.Errorf("vetoes %q hints %q; want %q %q", res.Vetoes, res.Hints, tt.wantVetoes, tt.wantHints)
			}
			if !strings.Contains(warn.String(), tt.wantWarning) || tt.wantWarning == "" && warn.Len() > 0 {
				t.Errorf("warnings %q, want %q", warn.String(), tt.wantWarning)
			}
			if res.DeleteAllowed == deleteDisallowed[tt.category] {
				t.Errorf("delete_allowed = %v for %s", res.DeleteAllowed, tt.category)
			}
		})
	}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func TestCandidateExcerptGolden(t *testing.T) {
	h := sampleHome(t)
	res, err := SelectCandidate(CandidateOptions{Root: h.root, Category: "decision", NewInfo: "JWT authentication tokens"})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.MarshalIndent(res, "", "  ")
	testutil.Golden(t, "testdata/candidate_decision.golden", append(data, '\n'))
}

func TestCandidateIndex(t *testing.T) {
	h := sampleHome(t)
	os.Remove(filepath.Join(h.root, "index.md"))
	res, err := SelectCandidate(CandidateOptions{Root: h.root, Category: "decision", NewInfo: "JWT authentication"})
	if err != nil || res.Candidate == nil {
		t.Fatalf("missing index not rebuilt: %v %+v", err, res)
	}
	_, err = SelectCandidate(CandidateOptions{Root: filepath.Join(h.root, "nope"), Category: "decision", NewInfo: "x"})
	if !errors.Is(err, ErrNoIndex) {
		t.Errorf("no root: err = %v, want ErrNoIndex", err)
	}
}
