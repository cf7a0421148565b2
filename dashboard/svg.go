package dashboard

import (
	"fmt"
	"html/template"
	"math"
	"strings"
	"time"
)

// Charts are drawn here as inline SVG, so a page needs no script and no
// request of its own for them. Every text put into one is escaped.

// gauge draws size against budget as a bar: green under warn (0: none),
// amber over warn, red over budget.
func gauge(size, budget, warn int64) template.HTML {
	const w, h = 240, 18
	if budget <= 0 {
		budget = 1
	}
	frac := math.Min(float64(size)/float64(budget), 1.25)
	colour := "#3a7d44"
	switch {
	case size > budget:
		colour = "#b3261e"
	case warn > 0 && size > warn:
		colour = "#b26a00"
	}
	budgetX := w / 1.25
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="gauge" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`,
		w, h, w, h, esc(fmt.Sprintf("%d of %d bytes", size, budget)))
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#e6e6e6"/>`, w, h)
	fmt.Fprintf(&b, `<rect width="%.1f" height="%d" fill="%s"/>`, frac*budgetX, h, colour)
	fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="0" y2="%d" stroke="#222" stroke-width="2"/>`, budgetX, budgetX, h)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// point is one value of a series at a time.
type point struct {
	T time.Time
	V float64
}

// series is a named line of a chart.
type series struct {
	Name   string
	Colour string
	Points []point
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"}

// lineChart draws series over a shared time axis, with the y axis from 0
// to the largest value, labelled in unit.
func lineChart(title, unit string, ss []series) template.HTML {
	const w, h, left, right, top, bottom = 720, 260, 70, 150, 20, 30
	var t0, t1 time.Time
	maxV := 0.0
	for _, s := range ss {
		for _, p := range s.Points {
			if t0.IsZero() || p.T.Before(t0) {
				t0 = p.T
			}
			if p.T.After(t1) {
				t1 = p.T
			}
			maxV = math.Max(maxV, p.V)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`, w, h, w, h, esc(title))
	if t0.IsZero() {
		fmt.Fprintf(&b, `<text x="%d" y="%d">no data</text></svg>`, left, h/2)
		return template.HTML(b.String())
	}
	if maxV == 0 {
		maxV = 1
	}
	span := t1.Sub(t0).Seconds()
	if span == 0 {
		span = 1
	}
	pw, ph := float64(w-left-right), float64(h-top-bottom)
	x := func(t time.Time) float64 { return left + t.Sub(t0).Seconds()/span*pw }
	y := func(v float64) float64 { return top + ph - v/maxV*ph }
	fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#888"/>`, left, y(0), left+pw, y(0))
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%.1f" stroke="#888"/>`, left, top, left, y(0))
	for _, frac := range []float64{0, 0.5, 1} {
		v := maxV * frac
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" font-size="11">%s</text>`, left-4, y(v)+4, esc(formatValue(v, unit)))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11">%s</text>`, left, h-8, esc(t0.Format(time.DateOnly)))
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="11" text-anchor="end">%s</text>`, left+pw, h-8, esc(t1.Format(time.DateOnly)))
	for i, s := range ss {
		colour := s.Colour
		if colour == "" {
			colour = palette[i%len(palette)]
		}
		var pts strings.Builder
		for _, p := range s.Points {
			fmt.Fprintf(&pts, "%.1f,%.1f ", x(p.T), y(p.V))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`, colour, strings.TrimSpace(pts.String()))
		fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="10" height="10" fill="%s"/><text x="%.1f" y="%d" font-size="12">%s</text>`,
			left+pw+12, top+i*18, colour, left+pw+26, top+i*18+10, esc(s.Name))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func formatValue(v float64, unit string) string {
	if unit == "bytes" {
		return formatBytes(int64(v))
	}
	return fmt.Sprintf("%.0f", v)
}

// formatBytes is a size as people read it.
func formatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// calendar draws one year as weeks of days, each day's cell shaded by its
// lines (or bytes: unit) against the busiest day's; a day with a log links to its page.
func calendar(year int, lines map[string]int, unit string, loc *time.Location) template.HTML {
	const cell, gap, left, top = 12, 2, 30, 18
	maxLines := 1
	for _, n := range lines {
		maxLines = max(maxLines, n)
	}
	first := time.Date(year, 1, 1, 0, 0, 0, 0, loc)
	offset := int(first.Weekday())
	weeks := (offset+366)/7 + 1
	w, h := left+weeks*(cell+gap)+4, top+7*(cell+gap)+4
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="calendar" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="session logs of %d">`, w, h, w, h, year)
	for i, name := range []string{"Sun", "", "Tue", "", "Thu", "", "Sat"} {
		if name != "" {
			fmt.Fprintf(&b, `<text x="0" y="%d" font-size="9">%s</text>`, top+i*(cell+gap)+10, name)
		}
	}
	for d := first; d.Year() == year; d = d.AddDate(0, 0, 1) {
		idx := offset + d.YearDay() - 1
		x, y := left+idx/7*(cell+gap), top+idx%7*(cell+gap)
		if d.Day() == 1 {
			fmt.Fprintf(&b, `<text x="%d" y="12" font-size="9">%s</text>`, x, d.Format("Jan"))
		}
		day := d.Format(time.DateOnly)
		n, ok := lines[day]
		if !ok {
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#ebedf0"><title>%s: no log</title></rect>`, x, y, cell, cell, day)
			continue
		}
		shade := 0.15 + 0.85*float64(n)/float64(maxLines)
		fmt.Fprintf(&b, `<a href="day?date=%s"><rect x="%d" y="%d" width="%d" height="%d" fill="#216e39" fill-opacity="%.2f"><title>%s: %d %s</title></rect></a>`,
			day, x, y, cell, cell, shade, day, n, unit)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func esc(s string) string { return template.HTMLEscapeString(s) }
