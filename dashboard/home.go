package dashboard

import (
	"context"

	"github.com/zylos/zylos-memory/tiers/home"
)

// homeKey is where a page's request carries the home opened for it.
type homeKey struct{}

// openHome opens the home for one page: Options.Open, else the layout on
// the dashboard's clock.
func (s *site) openHome() *home.Home {
	if s.o.Open != nil {
		return s.o.Open()
	}
	return home.Of(s.o.Layout, home.Options{Now: s.o.Now})
}

// home is the home of the page whose request ctx is: opened once for the
// page, its kind detected once (the service outlives a change of the
// layout, an init run meanwhile).
func (s *site) home(ctx context.Context) *home.Home {
	if h, ok := ctx.Value(homeKey{}).(*home.Home); ok {
		return h
	}
	return s.openHome()
}
