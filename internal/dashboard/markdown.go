package dashboard

import (
	"bytes"
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

// renderMarkdown turns src into HTML that is safe to embed.
func renderMarkdown(src []byte) template.HTML {
	src = bytes.ToValidUTF8(src, []byte("\uFFFD"))
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
