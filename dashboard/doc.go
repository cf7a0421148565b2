// Package dashboard is the operator's view of a zylos home: a local web
// dashboard the memory service (`scheduler run`) serves over HTTP on the
// loopback interface. It shows health, budgets, entries and records, the
// sessions calendar, search, the journal's timeline, charts of memory
// size and C4 backlog over time, and a team home's members, conflicts
// and entries kept local, as HTML and SVG rendered on the server
// from templates embedded in the binary; reading needs no JavaScript, and
// with it the pages update themselves from a server-sent event stream
// (see events.go).
//
// It is a package of its own under internal/, because it belongs to none of
// the packages it reads: it is a read-mostly view
// over tiers (layout, entries, budgets), tiers/fulltext (search, counts),
// tiers/records (a record's fields and change log), sync (the C4 backlog)
// and scheduler (tasks). Only the service imports it; the hooks, which
// start a process per call, never do.
//
// Security: every request needs the home's token (a random secret in
// memory/.state/, mode 0600) from the URL once, then an HttpOnly,
// SameSite=Strict cookie of a value derived from it and scoped to the
// pages' secret path (also derived from it), which no other port or home
// is sent; the Host header must name the bound address or localhost; the
// connections are capped so that the hook socket keeps its files; every state change is a POST with a CSRF token; every answer
// carries a Content-Security-Policy; a path taken from a request is
// confined to memory/ (see memPath).
//
// Cost: pages render one at a time (a page waits for its turn), on a
// thread of lowered priority (see niced), read
// SQLite files without taking a write lock, and never build or update the
// search index, so a page being drawn cannot hold up the hooks the same
// service answers on its socket.
package dashboard
