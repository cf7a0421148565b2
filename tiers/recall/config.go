package recall

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/zylos/zylos-memory/tiers"
	"github.com/zylos/zylos-memory/tiers/records"
)

// maxInjectCap is the most memories one prompt may receive (the claude-memory plugin).
const maxInjectCap = 20

// settings are the retrieval part of a root's config.
type settings struct {
	enabled       bool
	maxInject     int
	excerptBudget int
	warning       string // for stderr: a value that is no number
	descriptions  string // see descriptionsAttr
}

// retrievalSettings are retrieval.enabled, retrieval.max_inject and
// retrieval.excerpt_chars of the root's config, and its category
// descriptions. An unreadable config gives
// the defaults, as in the plugin. max_inject is clamped to [0, 20], not
// rejected; only a value that is no number at all gives the default and a
// warning for stderr. excerpt_chars is clamped to [0, tiers.ContextLimit].
func retrievalSettings(root string) settings {
	def := records.DefaultConfig()
	s := settings{enabled: def.RetrievalEnabled, maxInject: def.MaxInject, excerptBudget: DefaultExcerptBudget}
	cfg, err := records.LoadConfig(root)
	if err != nil {
		return s
	}
	s.enabled, s.maxInject, s.descriptions = cfg.RetrievalEnabled, cfg.MaxInject, descriptionsAttr(cfg)
	ret, _ := cfg.Raw["retrieval"].(map[string]any)
	if raw, ok := ret["max_inject"]; ok {
		n, err := toInt(raw)
		if err != nil {
			s.maxInject = def.MaxInject
			s.warning = fmt.Sprintf("[WARN] Invalid max_inject value: %v; using default %d", raw, def.MaxInject)
		} else {
			s.maxInject = min(max(n, 0), maxInjectCap)
		}
	}
	if raw, ok := ret["excerpt_chars"]; ok {
		if n, err := toInt(raw); err == nil {
			s.excerptBudget = min(max(n, 0), tiers.ContextLimit)
		}
	}
	return s
}

// toInt accepts what Python's int() accepts from JSON: a number
// (truncated toward zero) or a string of digits.
func toInt(v any) (int, error) {
	switch v := v.(type) {
	case float64:
		if math.IsNaN(v) || math.Abs(v) > 1e9 {
			return 0, fmt.Errorf("out of range")
		}
		return int(v), nil
	case string:
		return strconv.Atoi(strings.TrimSpace(v))
	}
	return 0, fmt.Errorf("not a number")
}

// descriptionsAttr is the descriptions="..." attribute of the
// <memory-context> tag, as the plugin writes it: each category's
// categories.<c>.description from the config, "key=text" joined by "; "
// in key order, or "" when no category has one.
func descriptionsAttr(cfg *records.Config) string {
	raw, _ := cfg.Raw["categories"].(map[string]any)
	cats := map[string]any{}
	for key, c := range raw {
		cats[strings.ToLower(key)] = c
	}
	var parts []string
	for _, key := range slices.Sorted(maps.Keys(cats)) {
		c, _ := cats[key].(map[string]any)
		desc, _ := c["description"].(string)
		safeKey := strings.Map(func(r rune) rune {
			if r == '_' || (r >= 'a' && r <= 'z') {
				return r
			}
			return -1
		}, key)
		if desc == "" || safeKey == "" {
			continue
		}
		text := strings.ReplaceAll(injectSafe(records.Truncate(desc, maxDescription)), `"`, "&quot;")
		parts = append(parts, safeKey+"="+text)
	}
	if len(parts) == 0 {
		return ""
	}
	return ` descriptions="` + strings.Join(parts, "; ") + `"`
}

// maxDescription is how much of a category description is read.
const maxDescription = 500
