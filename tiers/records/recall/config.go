package recall

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/zylos/zylos-memory/tiers/records"
)

// maxInjectCap is the most memories one prompt may receive (seed 003).
const maxInjectCap = 20

// retrievalSettings are retrieval.enabled and retrieval.max_inject of the
// root's config. An unreadable config gives the defaults, as in the plugin.
// max_inject is clamped to [0, 20], not rejected; only a value that is no
// number at all gives the default and a warning for stderr.
func retrievalSettings(root string) (enabled bool, maxInject int, warning string) {
	cfg, err := records.LoadConfig(root)
	if err != nil {
		def := records.DefaultConfig()
		return def.RetrievalEnabled, def.MaxInject, ""
	}
	def := records.DefaultConfig().MaxInject
	ret, _ := cfg.Raw["retrieval"].(map[string]any)
	raw, ok := ret["max_inject"]
	if !ok {
		return cfg.RetrievalEnabled, cfg.MaxInject, ""
	}
	n, err := toInt(raw)
	if err != nil {
		return cfg.RetrievalEnabled, def, fmt.Sprintf("[WARN] Invalid max_inject value: %v; using default %d", raw, def)
	}
	return cfg.RetrievalEnabled, min(max(n, 0), maxInjectCap), ""
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
func descriptionsAttr(root string) string {
	cfg, err := records.LoadConfig(root)
	if err != nil {
		return ""
	}
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
