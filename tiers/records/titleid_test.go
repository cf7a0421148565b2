package records

import (
	"strings"
	"testing"
)

func TestTitleIDForAnyScript(t *testing.T) {
	plugin := map[string]string{"Use Kafka!": "use-kafka", "Café au lait": "cafe-au-lait", "  Trim me ": "trim-me", "": ""}
	for title, want := range plugin {
		if got := TitleID(title); got != want {
			t.Errorf("TitleID(%q) = %q, want the plugin's slug %q", title, got, want)
		}
	}
	seen := map[string]string{}
	for _, title := range []string{"数据库选择", "数据库选项", "Выбор базы данных", "🚀🚀", "🚀", "使用SQLite存储", "使用SQLite检索",
		"سلام", "Ελληνικά 2", strings.Repeat("word ", 30) + "词"} {
		id := TitleID(title)
		if !ValidID(id) {
			t.Errorf("TitleID(%q) = %q, not a valid id", title, id)
		}
		if other, dup := seen[id]; dup {
			t.Errorf("%q and %q share the id %q", title, other, id)
		}
		seen[id] = title
		if TitleID(title) != id {
			t.Errorf("TitleID(%q) is not stable", title)
		}
	}
	if id := TitleID("使用SQLite存储"); !strings.HasPrefix(id, "sqlite-") {
		t.Errorf("a mixed title keeps its ASCII words: %q", id)
	}
}
