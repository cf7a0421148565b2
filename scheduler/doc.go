// Package scheduler owns the memory service: an internal cron scheduler
// whose tasks and run history live in SQLite under memory/.state/. It
// computes slots with robfig/cron/v3 in each task's timezone, claims every
// slot in the state DB before acting (so no slot ever fires twice, even
// across a restart or kill -9), waits for the agent to be idle where a task
// asks for it, and runs the built-in memory tasks (periodic sync trigger,
// daily session rotation, weekly consolidation report) and users' tasks,
// which queue prompts into C4. The service also keeps the search index
// built and current (KeepSearchIndex).
package scheduler
