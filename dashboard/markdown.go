package dashboard

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// markdown renders memory files. Raw HTML in them is shown as text, never
// passed through: a memory file is data, not markup (goldmark's default
// would drop it silently); unsafe link targets (javascript:) are dropped.
var markdown = sync.OnceValue(func() goldmark.Markdown {
	md := goldmark.New()
	md.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(escapedHTML{}, 100)))
	return md
})

// Bounds on what goldmark is given. Its inline parsing of some patterns
// (emphasis delimiters such as "*a_ " repeated, unclosed images "![a](")
// takes time growing with the square of a paragraph's size, and a render
// cannot be stopped once it runs; so a text is rendered only when no run
// of non-blank lines (where inline parsing spans) is over maxRenderedBlock
// and the whole is within maxRendered, which bounds any render to a
// fraction of a second (the worst pattern known: about 0.3 s at the
// bounds). Past them the text is shown as it is, with a note.
const (
	maxRendered      = 128 << 10
	maxRenderedBlock = 8 << 10
)

// tooCostly says why src is not rendered, or "" when it may be.
func tooCostly(src []byte) string {
	if len(src) > maxRendered {
		return fmt.Sprintf("it is %s, over the %s the dashboard renders", formatBytes(int64(len(src))), formatBytes(maxRendered))
	}
	block := 0
	for line := range bytes.Lines(src) {
		if len(bytes.TrimSpace(line)) == 0 {
			block = 0
			continue
		}
		if block += len(line); block > maxRenderedBlock {
			return fmt.Sprintf("a paragraph is over the %s the dashboard renders at once", formatBytes(maxRenderedBlock))
		}
	}
	return ""
}

// renderMarkdown turns src into HTML that is safe to embed; a text too
// costly to render is shown as its source, with a note saying why.
func renderMarkdown(src []byte) template.HTML {
	src = bytes.ToValidUTF8(src, []byte("\uFFFD"))
	if why := tooCostly(src); why != "" {
		return template.HTML(`<p class="note">Shown as text, not rendered: ` + template.HTMLEscapeString(why) + ".</p>\n" +
			`<pre class="source">` + template.HTMLEscapeString(string(src)) + "</pre>")
	}
	var b bytes.Buffer
	if err := markdown().Convert(src, &b); err != nil {
		return template.HTML("<pre>" + template.HTMLEscapeString(string(src)) + "</pre>")
	}
	return template.HTML(b.String()) // goldmark's output, raw HTML escaped below
}

// escapedHTML renders raw HTML nodes as their escaped text.
type escapedHTML struct{}

func (escapedHTML) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindHTMLBlock, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		b := n.(*ast.HTMLBlock)
		var text strings.Builder
		lines := b.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			text.Write(seg.Value(src))
		}
		if b.HasClosure() {
			text.Write(b.ClosureLine.Value(src))
		}
		w.WriteString("<pre class=\"raw\">")
		w.WriteString(template.HTMLEscapeString(text.String()))
		w.WriteString("</pre>\n")
		return ast.WalkSkipChildren, nil
	})
	reg.Register(ast.KindRawHTML, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkSkipChildren, nil
		}
		segs := n.(*ast.RawHTML).Segments
		for i := 0; i < segs.Len(); i++ {
			seg := segs.At(i)
			w.WriteString(template.HTMLEscapeString(string(seg.Value(src))))
		}
		return ast.WalkSkipChildren, nil
	})
}
