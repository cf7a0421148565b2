// Package e2e runs the real Claude Code CLI against a stand-in for the
// Messages API with the hooks of a home made by init (make e2e).
package e2e
