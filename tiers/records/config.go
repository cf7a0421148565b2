package records

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"strings"

	"github.com/zylos/zylos-memory/internal/regfile"
)

// ConfigFile is the config's name inside the records root.
const ConfigFile = "memory-config.json"

// CategoryConfig is one entry of "categories".
type CategoryConfig struct {
	Enabled       bool
	Folder        string
	AutoCapture   bool
	RetentionDays int
	MaxRetained   int // session_summary only; 0 elsewhere
	Description   string
}

// TriageConfig is the "triage" section.
type TriageConfig struct {
	Enabled           bool
	MaxMessages       int
	Thresholds        map[string]float64 // keyed by upper-case category
	ParallelEnabled   bool
	CategoryModels    map[string]string // keyed by lower-case category
	VerificationModel string
	DefaultModel      string
}

// Config is memory-config.json with every default of the claude-memory plugin
// filled in. Raw keeps the file as read, unknown keys included, so a
// rewrite never drops them. Problems lists invalid values that were
// replaced by their default.
type Config struct {
	Categories             map[string]CategoryConfig
	AutoCommit             bool
	MaxMemoriesPerCategory int
	RetrievalEnabled       bool
	MaxInject              int
	MatchStrategy          string
	Triage                 TriageConfig
	GracePeriodDays        int
	ArchiveRetired         bool

	Raw      map[string]any
	Problems []string
}

// DefaultConfig is the config of a root without memory-config.json.
func DefaultConfig() *Config {
	cfg := &Config{
		Categories:             map[string]CategoryConfig{},
		MaxMemoriesPerCategory: 100,
		RetrievalEnabled:       true,
		MaxInject:              5,
		MatchStrategy:          "title_tags",
		GracePeriodDays:        30,
		ArchiveRetired:         true,
		Triage: TriageConfig{
			Enabled:     true,
			MaxMessages: 50,
			Thresholds: map[string]float64{
				"DECISION": 0.4, "RUNBOOK": 0.4, "CONSTRAINT": 0.5,
				"TECH_DEBT": 0.4, "PREFERENCE": 0.4, "SESSION_SUMMARY": 0.6,
			},
			ParallelEnabled: true,
			CategoryModels: map[string]string{
				"session_summary": "haiku", "decision": "sonnet", "runbook": "haiku",
				"constraint": "sonnet", "tech_debt": "haiku", "preference": "haiku",
			},
			VerificationModel: "sonnet",
			DefaultModel:      "haiku",
		},
		Raw: map[string]any{},
	}
	for _, c := range Categories {
		cc := CategoryConfig{Enabled: true, Folder: Folder(c), AutoCapture: true}
		if c == "session_summary" {
			cc.RetentionDays, cc.MaxRetained = 90, 5
		}
		cfg.Categories[c] = cc
	}
	return cfg
}

// LoadConfig reads root/memory-config.json over the defaults. A missing
// file is no error; an unparsable one is (the caller decides whether to
// fall back to DefaultConfig, as the hooks do).
func LoadConfig(root string) (*Config, error) {
	cfg := DefaultConfig()
	data, err := regfile.ReadFile(filepath.Join(root, ConfigFile))
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, fmt.Errorf("read config: %w", err)
	}
	if err := json.Unmarshal(data, &cfg.Raw); err != nil {
		return cfg, fmt.Errorf("parse %s: %w", ConfigFile, err)
	}
	cfg.apply()
	return cfg, nil
}

// MaxRetained is categories.<c>.max_retained (session window size).
func (cfg *Config) MaxRetained(c string) int { return cfg.Categories[c].MaxRetained }

func (cfg *Config) apply() {
	r := reader{cfg: cfg}
	if cats, ok := r.object(cfg.Raw, "categories"); ok {
		for name, v := range cats {
			obj, ok := v.(map[string]any)
			if !ok {
				cfg.problem("categories."+name, "an object", v)
				continue
			}
			cfg.Categories[name] = r.category(name, obj, cfg.Categories[name])
		}
	}
	r.boolean(cfg.Raw, "auto_commit", &cfg.AutoCommit)
	r.integer(cfg.Raw, "max_memories_per_category", 1, math.MaxInt32, &cfg.MaxMemoriesPerCategory)
	if ret, ok := r.object(cfg.Raw, "retrieval"); ok {
		r.boolean(ret, "retrieval.enabled", &cfg.RetrievalEnabled)
		r.integer(ret, "retrieval.max_inject", 0, 20, &cfg.MaxInject)
		r.str(ret, "retrieval.match_strategy", &cfg.MatchStrategy)
	}
	if tri, ok := r.object(cfg.Raw, "triage"); ok {
		r.triage(tri, &cfg.Triage)
	}
	if del, ok := r.object(cfg.Raw, "delete"); ok {
		r.integer(del, "delete.grace_period_days", 0, math.MaxInt32, &cfg.GracePeriodDays)
		r.boolean(del, "delete.archive_retired", &cfg.ArchiveRetired)
	}
}

func (cfg *Config) problem(key, want string, got any) {
	b, _ := json.Marshal(got)
	cfg.Problems = append(cfg.Problems, fmt.Sprintf("%s: want %s, got %s; using the default", key, want, b))
}

// reader pulls typed values out of the raw JSON, reporting each value of
// the wrong type or range and keeping the default for it.
type reader struct{ cfg *Config }

// last is the final dotted component of key: the name inside obj.
func last(key string) string { return key[strings.LastIndex(key, ".")+1:] }

func (r reader) object(obj map[string]any, key string) (map[string]any, bool) {
	v, ok := obj[last(key)]
	if !ok {
		return nil, false
	}
	m, ok := v.(map[string]any)
	if !ok {
		r.cfg.problem(key, "an object", v)
	}
	return m, ok
}

func (r reader) boolean(obj map[string]any, key string, dst *bool) {
	if v, ok := obj[last(key)]; ok {
		if b, ok := v.(bool); ok {
			*dst = b
		} else {
			r.cfg.problem(key, "true or false", v)
		}
	}
}

func (r reader) str(obj map[string]any, key string, dst *string) {
	if v, ok := obj[last(key)]; ok {
		if s, ok := v.(string); ok {
			*dst = s
		} else {
			r.cfg.problem(key, "a string", v)
		}
	}
}

func (r reader) integer(obj map[string]any, key string, lo, hi int, dst *int) {
	v, ok := obj[last(key)]
	if !ok {
		return
	}
	f, isNum := v.(float64)
	if !isNum || f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		r.cfg.problem(key, fmt.Sprintf("an integer in [%d, %d]", lo, hi), v)
		return
	}
	*dst = int(f)
}

func (r reader) fraction(obj map[string]any, key string, dst *float64) {
	v, ok := obj[last(key)]
	if !ok {
		return
	}
	f, isNum := v.(float64)
	if !isNum || math.IsNaN(f) || math.IsInf(f, 0) {
		r.cfg.problem(key, "a number in [0, 1]", v)
		return
	}
	*dst = math.Min(1, math.Max(0, f))
}

func (r reader) category(name string, obj map[string]any, cc CategoryConfig) CategoryConfig {
	key := "categories." + name + "."
	r.boolean(obj, key+"enabled", &cc.Enabled)
	r.str(obj, key+"folder", &cc.Folder)
	r.boolean(obj, key+"auto_capture", &cc.AutoCapture)
	r.integer(obj, key+"retention_days", 0, math.MaxInt32, &cc.RetentionDays)
	r.integer(obj, key+"max_retained", 1, math.MaxInt32, &cc.MaxRetained)
	r.str(obj, key+"description", &cc.Description)
	return cc
}

var validModels = map[string]bool{"haiku": true, "sonnet": true, "opus": true}

func (r reader) triage(obj map[string]any, t *TriageConfig) {
	r.boolean(obj, "triage.enabled", &t.Enabled)
	// max_messages is clamped into [10, 200] rather than rejected (the claude-memory plugin).
	if v, ok := obj["max_messages"].(float64); ok && v == math.Trunc(v) {
		t.MaxMessages = int(math.Min(200, math.Max(10, v)))
	} else {
		r.integer(obj, "triage.max_messages", 10, 200, &t.MaxMessages)
	}
	if th, ok := r.object(obj, "triage.thresholds"); ok {
		for k := range th {
			up := strings.ToUpper(k)
			f := t.Thresholds[up]
			r.fraction(th, "triage.thresholds."+k, &f)
			t.Thresholds[up] = f
		}
	}
	par, ok := r.object(obj, "triage.parallel")
	if !ok {
		return
	}
	r.boolean(par, "triage.parallel.enabled", &t.ParallelEnabled)
	if models, ok := r.object(par, "triage.parallel.category_models"); ok {
		for k := range models {
			m := t.CategoryModels[strings.ToLower(k)]
			r.model(models, "triage.parallel.category_models."+k, &m)
			t.CategoryModels[strings.ToLower(k)] = m
		}
	}
	r.model(par, "triage.parallel.verification_model", &t.VerificationModel)
	r.model(par, "triage.parallel.default_model", &t.DefaultModel)
}

func (r reader) model(obj map[string]any, key string, dst *string) {
	v, ok := obj[last(key)]
	if !ok {
		return
	}
	if s, ok := v.(string); ok && validModels[strings.ToLower(s)] {
		*dst = strings.ToLower(s)
		return
	}
	r.cfg.problem(key, "one of haiku, sonnet, opus", v)
}

// configOrDefault loads the config for an operation that must go on
// regardless: a broken file or invalid values are reported through warn
// and the defaults are used in their place.
func configOrDefault(root string, warn func(string)) *Config {
	cfg, err := LoadConfig(root)
	if err != nil {
		warn("[WARN] " + err.Error() + "; using the defaults")
		return DefaultConfig()
	}
	for _, p := range cfg.Problems {
		warn("[WARN] " + ConfigFile + ": " + p)
	}
	return cfg
}
