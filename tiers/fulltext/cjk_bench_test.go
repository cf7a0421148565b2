package fulltext

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zylos/zylos-memory/internal/testutil"
	"github.com/zylos/zylos-memory/tiers"
)

// cjkWords are words of the CJK corpus: two-letter words (as common in
// these languages as in the notes an agent writes) and longer ones.
var cjkWords = map[string][]string{
	"zh": strings.Fields(`数据 数据库 迁移 方案 服务器 东京 会议 决定 使用 用户 接口 测试 部署 回滚 日志 监控 告警 缓存 队列 消息
		备份 恢复 网络 延迟 版本 发布 配置 权限 账号 密码 证书 域名 负载 均衡 容器 集群 节点 磁盘 内存 进程 线程 事务 索引 查询
		报表 账单 支付 订单 库存 客户 合同 预算 财务 审计 安全 漏洞 补丁 升级 文档 需求 设计 评审 上线 下线 故障 排查 修复 优化`),
	"ja": strings.Fields(`東京 大阪 サーバー データベース 移行 計画 会議 決定 使用 ユーザー 接続 試験 配備 障害 記録 監視 警告 キャッシュ
		バックアップ 復旧 遅延 版 公開 設定 権限 証明書 負荷 分散 コンテナ 節点 記憶 処理 索引 検索 請求 支払い 注文 在庫 顧客
		契約 予算 監査 脆弱性 更新 文書 要件 設計 審査 本番 修正 最適化 再起動 確認 報告 担当 予定 完了 対応 調査 原因 影響`),
	"ko": strings.Fields(`회의록 회의 서버 데이터베이스 이전 계획 결정 사용 사용자 접속 시험 배포 장애 기록 감시 경고 캐시 백업 복구 지연
		버전 공개 설정 권한 인증서 부하 분산 컨테이너 노드 메모리 처리 색인 검색 청구 결제 주문 재고 고객 계약 예산 감사
		취약점 갱신 문서 요구 설계 심사 운영 수정 최적화 재시작 확인 보고 담당 예정 완료 대응 조사 원인 영향 서울 부산`),
}

// cjkParticles join Japanese and Korean words as in real text.
var cjkParticles = map[string][]string{
	"zh": {"的", "了", "和", "在", "是", ""},
	"ja": {"の", "を", "は", "が", "に", "で"},
	"ko": {"을 ", "를 ", "은 ", "는 ", "이 ", "에서 "},
}

type cjkQuery struct {
	words []string
	doc   int
}

// cjkCorpus is n lines of one language each, run together without spaces
// (Korean: a space after each particle), and queries of two words of a
// line, the line the answer.
func cjkCorpus(n, queries int) (lines []string, qs []cjkQuery) {
	rng := rand.New(rand.NewPCG(7, 11))
	langs := []string{"zh", "ja", "ko"}
	docWords := make([][]string, n)
	for i := range n {
		lang := langs[i%3]
		var b strings.Builder
		for range 6 + rng.IntN(8) {
			w := cjkWords[lang][rng.IntN(len(cjkWords[lang]))]
			docWords[i] = append(docWords[i], w)
			b.WriteString(w + cjkParticles[lang][rng.IntN(len(cjkParticles[lang]))])
		}
		lines = append(lines, strings.TrimSpace(b.String()))
	}
	for range queries {
		d := rng.IntN(n)
		ws := docWords[d]
		a, c := ws[rng.IntN(len(ws))], ws[rng.IntN(len(ws))]
		qs = append(qs, cjkQuery{words: slices.Compact([]string{a, c}), doc: d})
	}
	return lines, qs
}

// answers reports whether line holds every word of q.
func (q cjkQuery) answeredBy(line string) bool {
	for _, w := range q.words {
		if !strings.Contains(line, w) {
			return false
		}
	}
	return true
}

// BenchmarkCJKSegmentation measures, on a corpus of Chinese, Japanese and
// Korean lines, the recall of two-word queries (R@1, R@5: a line holding
// both words among the first 1 or 5) and the index size of three ways to
// index CJK text: unicode61 alone (before), SQLite's trigram tokenizer in
// a second table over the CJK documents (words of two letters cannot be
// matched there), and the pairs column of the index. The loop times a
// search of the pairs index.
func BenchmarkCJKSegmentation(b *testing.B) {
	lines, qs := cjkCorpus(3000, 600)
	// the index: the pairs column, as search builds it
	l := tiers.Layout{ZylosDir: filepath.Join(b.TempDir(), "zylos")}
	var log strings.Builder
	log.WriteString("# Session Log: 2026-11-01\n\n")
	for _, line := range lines {
		log.WriteString(line + "\n\n")
	}
	testutil.WriteFile(b, filepath.Join(l.SessionsDir(), "2026-11-01.md"), log.String())
	time.Sleep(racyWindow)
	h := ScopeOf(l, "", testConversations)
	ix, err := Open(context.Background(), h, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	// every line is its own document (line 3, 5, 7...): ranked without
	// the grouping of search, as the others are
	pairs := func(q cjkQuery) []int {
		ts := terms(strings.Join(q.words, " "))
		var out []int
		rows, err := ix.db.Query(fmt.Sprintf(`SELECT d.line FROM fts JOIN docs d ON d.id = fts.rowid
			WHERE fts MATCH ? ORDER BY bm25(fts, %g, %g, %g, %g) LIMIT 5`, titleWeight, tagsWeight, bodyWeight, cjkWeight), matchExpr(ts))
		if err != nil {
			b.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var n int
			rows.Scan(&n)
			out = append(out, (n-3)/2)
		}
		return out
	}
	// the others: a database of the lines alone
	other := func(name, create, insert string, match func(q cjkQuery) string) (func(cjkQuery) []int, int64) {
		path := filepath.Join(b.TempDir(), name+".db")
		db, err := sql.Open("sqlite3", path)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		if _, err := db.Exec(create); err != nil {
			b.Fatal(err)
		}
		tx, _ := db.Begin()
		for i, line := range lines {
			if _, err := tx.Exec(insert, i, line); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		db.Exec(`VACUUM`)
		fi, _ := os.Stat(path)
		return func(q cjkQuery) []int {
			m := match(q)
			if m == "" {
				return nil
			}
			rows, err := db.Query(`SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 5`, m)
			if err != nil {
				b.Fatal(err)
			}
			defer rows.Close()
			var out []int
			for rows.Next() {
				var n int
				rows.Scan(&n)
				out = append(out, n)
			}
			return out
		}, fi.Size()
	}
	quote := func(ws []string, minRunes int) string {
		var out []string
		for _, w := range ws {
			if len([]rune(w)) >= minRunes {
				out = append(out, `"`+w+`"`)
			}
		}
		return strings.Join(out, " OR ")
	}
	plain, plainSize := other("unicode61", `CREATE VIRTUAL TABLE t USING fts5(body, tokenize='porter unicode61 remove_diacritics 2')`,
		`INSERT INTO t(rowid, body) VALUES(?, ?)`, func(q cjkQuery) string { return quote(q.words, 1) })
	trigram, trigramSize := other("trigram", `CREATE VIRTUAL TABLE t USING fts5(body, tokenize='trigram')`,
		`INSERT INTO t(rowid, body) VALUES(?, ?)`, func(q cjkQuery) string { return quote(q.words, 3) })
	docsOnly := func() int64 { // the lines stored once, no full-text index
		path := filepath.Join(b.TempDir(), "plain.db")
		db, _ := sql.Open("sqlite3", path)
		defer db.Close()
		db.Exec(`CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)`)
		tx, _ := db.Begin()
		for i, line := range lines {
			tx.Exec(`INSERT INTO t VALUES(?, ?)`, i, line)
		}
		tx.Commit()
		fi, _ := os.Stat(path)
		return fi.Size()
	}()
	ix.db.Exec(`VACUUM`)
	fi, _ := os.Stat(h.DBPath())
	recall := func(rank func(cjkQuery) []int, qs []cjkQuery) (r1, r5 float64) {
		for _, q := range qs {
			for k, d := range rank(q) {
				if d >= 0 && d < len(lines) && q.answeredBy(lines[d]) {
					if k == 0 {
						r1++
					}
					r5++
					break
				}
			}
		}
		return 100 * r1 / float64(len(qs)), 100 * r5 / float64(len(qs))
	}
	var long []cjkQuery
	for _, q := range qs {
		if !slices.ContainsFunc(q.words, func(w string) bool { return len([]rune(w)) < 3 }) {
			long = append(long, q)
		}
	}
	i := 0
	for b.Loop() {
		pairs(qs[i%len(qs)])
		i++
	}
	// reported after the loop, which clears what was reported before it
	for _, v := range []struct {
		name string
		rank func(cjkQuery) []int
		size int64
	}{{"unicode61", plain, plainSize}, {"trigram", trigram, trigramSize}, {"pairs", pairs, fi.Size()}} {
		r1, r5 := recall(v.rank, qs)
		b.ReportMetric(r1, v.name+"-R@1-%")
		b.ReportMetric(r5, v.name+"-R@5-%")
		// on the queries whose words all have three letters or more,
		// which a trigram index can match
		_, r5 = recall(v.rank, long)
		b.ReportMetric(r5, v.name+"-3plus-R@5-%")
		b.ReportMetric(float64(v.size-docsOnly)/1024, v.name+"-index-KB")
	}
}
