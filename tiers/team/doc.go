// Package team shares what the homes of a team learn: the records of
// their reference tier (decisions, projects, preferences, notes), through
// any git remote, with no server.
//
// Each home publishes its shared records as one commit on a ref of its
// own, refs/zylos/team/NAME, in a repository of the exchange kept apart
// from the journal (memory/.state/team/repo.git): a push of that ref sends
// the objects it reaches and nothing else, so core memory, the session
// logs, C4 and .state/ never leave the machine through the team. Before a
// record is published it is scanned for credentials; one that matches is
// kept local and marked private in its record and its entry.
//
// A sync fetches every member's ref and applies what changed since the
// member's commit it applied last (the merge base: what changed is never
// decided by a clock) through the records layer, merged by identity: a
// record new on one side is added, one changed on one side takes that
// change, one changed on both keeps both texts, the entry and a conflict.
// Retire and archive travel as status changes; a record missing from a
// member's commit is never deleted here. Each member's applied changes
// are one journal commit with the member in its trailers.
package team
