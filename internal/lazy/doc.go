// Package lazy builds package-level values on first use instead of at
// program start. Every command of the binary runs every package init, so
// a value only some commands need (a compiled regexp, a parser) is built
// by the first call that needs it, once per process.
package lazy
