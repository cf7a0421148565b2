// Package doctor checks a home the way `zylos-memory doctor` reports it:
// its directories, the always-injected files against their budgets, the
// C4 and scheduler databases, every hook entry point registered and
// answering in time, the MCP server, and a team home's membership,
// members, secrets kept local and conflicts. Each check is one line with a
// status; the memory service and the dashboard run the same checks.
package doctor
