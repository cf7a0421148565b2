package triage

import (
	"encoding/json"
	"math"
	"strings"
)

// Config is the "triage" section of memory-config.json, defaults applied.
type Config struct {
	Enabled     bool
	MaxMessages int
	Thresholds  map[string]float64 // keyed by upper-case category
	Parallel    Parallel
}

// Parallel is passed through to the agent in <triage_data>: which model
// drafts each category.
type Parallel struct {
	Enabled           bool              `json:"enabled"`
	CategoryModels    map[string]string `json:"category_models"`
	VerificationModel string            `json:"verification_model"`
	DefaultModel      string            `json:"default_model"`
}

const (
	defaultMaxMessages = 50
	minMessages        = 10
	maxMessages        = 200
)

var validModels = map[string]bool{"haiku": true, "sonnet": true, "opus": true}

// DefaultConfig is seed 003's memory-config.default.json triage section.
func DefaultConfig() Config {
	return Config{
		Enabled:     true,
		MaxMessages: defaultMaxMessages,
		Thresholds: map[string]float64{
			Decision: 0.4, Runbook: 0.4, Constraint: 0.5,
			TechDebt: 0.4, Preference: 0.4, SessionSummary: 0.6,
		},
		Parallel: Parallel{
			Enabled: true,
			CategoryModels: map[string]string{
				"session_summary": "haiku", "decision": "sonnet", "runbook": "haiku",
				"constraint": "sonnet", "tech_debt": "haiku", "preference": "haiku",
			},
			VerificationModel: "sonnet",
			DefaultModel:      "haiku",
		},
	}
}

// rawConfig mirrors the JSON with pointers, so "absent" and "wrong type"
// both keep the default.
type rawConfig struct {
	Enabled     *bool          `json:"enabled"`
	MaxMessages *float64       `json:"max_messages"`
	Thresholds  map[string]any `json:"thresholds"`
	Parallel    *rawParallel   `json:"parallel"`
}

type rawParallel struct {
	Enabled           *bool          `json:"enabled"`
	CategoryModels    map[string]any `json:"category_models"`
	VerificationModel *string        `json:"verification_model"`
	DefaultModel      *string        `json:"default_model"`
}

// ParseConfig reads the value of the "triage" key of memory-config.json.
// It never fails: anything unreadable keeps its default, numbers are
// clamped to their range and NaN or Inf thresholds are ignored, as the
// plugin does.
func ParseConfig(section json.RawMessage) Config {
	cfg := DefaultConfig()
	var raw rawConfig
	if len(section) == 0 || json.Unmarshal(section, &raw) != nil {
		return cfg
	}
	if raw.Enabled != nil {
		cfg.Enabled = *raw.Enabled
	}
	if raw.MaxMessages != nil && !math.IsNaN(*raw.MaxMessages) {
		cfg.MaxMessages = int(min(maxMessages, max(minMessages, *raw.MaxMessages)))
	}
	for key, v := range raw.Thresholds {
		f, ok := v.(float64)
		cat := strings.ToUpper(key)
		if _, known := cfg.Thresholds[cat]; !ok || !known || math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		cfg.Thresholds[cat] = min(1, max(0, f))
	}
	if raw.Parallel != nil {
		cfg.Parallel = parseParallel(*raw.Parallel, cfg.Parallel)
	}
	return cfg
}

func parseParallel(raw rawParallel, p Parallel) Parallel {
	if raw.Enabled != nil {
		p.Enabled = *raw.Enabled
	}
	model := func(s *string, fallback string) string {
		if s != nil && validModels[strings.ToLower(*s)] {
			return strings.ToLower(*s)
		}
		return fallback
	}
	p.DefaultModel = model(raw.DefaultModel, p.DefaultModel)
	p.VerificationModel = model(raw.VerificationModel, p.VerificationModel)
	for key, v := range raw.CategoryModels {
		s, ok := v.(string)
		cat := strings.ToLower(key)
		if _, known := p.CategoryModels[cat]; ok && known {
			p.CategoryModels[cat] = model(&s, p.DefaultModel)
		}
	}
	return p
}
