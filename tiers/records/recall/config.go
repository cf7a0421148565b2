package recall

import (
	"fmt"
	"math"
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
