package bridge

import (
	"strconv"
	"strings"
)

// The entry index, kept in the StampFile, places every entry that holds an
// id in the view files as the stamp's keys describe them: its file, its
// record's category and id, its byte span, whether the parser found it
// malformed and its section. A records write whose ingest found everything
// in step renders an entry in place from it (see view.renderIndexed),
// parsing that entry alone instead of the whole file. One line per entry,
// in the order of the files and of the entries in them:
//
//	rel \t category \t id \t start \t end \t problem (0|1) \t "section"
type indexed struct {
	rel, category, id string
	start, end        int
	problem           bool
	section           string
}

func (x indexed) line() string {
	p := "0"
	if x.problem {
		p = "1"
	}
	return x.rel + "\t" + x.category + "\t" + x.id + "\t" + strconv.Itoa(x.start) + "\t" + strconv.Itoa(x.end) + "\t" + p + "\t" + strconv.Quote(x.section) + "\n"
}

// indexFiles is the entry index of files as an ingest parsed them. Its
// problem flags are the parser's: the duplicate-id problems an ingest adds
// are only ever on an entry after the first holder of its id, which is
// the one a render looks for.
func indexFiles(files []*viewFile) string {
	var b strings.Builder
	for _, f := range files {
		for _, e := range f.entries {
			if e.id != "" {
				b.WriteString(indexed{rel: f.rel, category: e.spec.category, id: e.id, start: e.start, end: e.end,
					problem: e.problem != "", section: e.Section}.line())
			}
		}
	}
	return b.String()
}

// parseIndex reads an entry index; false when it does not read.
func parseIndex(s string) ([]indexed, bool) {
	var out []indexed
	for s != "" {
		line, rest, ok := strings.Cut(s, "\n")
		if !ok {
			return nil, false
		}
		s = rest
		f := strings.SplitN(line, "\t", 7)
		if len(f) != 7 {
			return nil, false
		}
		start, err1 := strconv.Atoi(f[3])
		end, err2 := strconv.Atoi(f[4])
		section, err3 := strconv.Unquote(f[6])
		if err1 != nil || err2 != nil || err3 != nil || start < 0 || end <= start {
			return nil, false
		}
		out = append(out, indexed{rel: f[0], category: f[1], id: f[2], start: start, end: end, problem: f[5] == "1", section: section})
	}
	return out, true
}

func joinIndex(xs []indexed) string {
	var b strings.Builder
	for _, x := range xs {
		b.WriteString(x.line())
	}
	return b.String()
}
