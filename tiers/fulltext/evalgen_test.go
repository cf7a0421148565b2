package fulltext_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// The recall evaluation: a generated home of evalDays days of work, each
// day one session (its log, and for some days its conversation in C4),
// with a few facts said among everyday chatter about the same people,
// systems and tools, and questions about those facts asked in other
// words. A question is answered when the session of its fact is among
// the first k distinct sessions search returns.

// evalFact is a fact as said on the day and the questions that ask for
// it, each in its own style: a paraphrase with other words, a few
// keywords as typed into a search box, and an indirect question about a
// detail of it. Each template is used several times with other people,
// systems and tools, so every question names at least one of them: a
// question that fits every use has no one answering session.
type evalFact struct {
	say string
	ask [3]string
}

// evalFacts are the templates of facts. {P} and {Q} are people, {S} a
// system, {T} and {U} tools, {V} a vendor, {C} a city, {X} a customer,
// {N} a number, {D} and {E} weekdays, {M} a month, {R} a restaurant, {B}
// a book, {F} a platform.
var evalFacts = []evalFact{
	{"{P} reported that the {S} was timing out on {T} connections after the {D} deploy",
		[3]string{"who noticed connection timeouts between the {S} and {T}?", "{S} {T} timeout", "what broke in the {S} after {D}'s release?"}},
	{"Agreed with {P} to move the {S} cache from {T} to {U} to cut costs",
		[3]string{"why did we migrate the caching layer of the {S} to {U}?", "{S} cache migration {U}", "what did {P} and I decide about caching?"}},
	{"{P} is flying to {C} on {D} for the {V} partnership meeting",
		[3]string{"when is {P} travelling to {C}?", "{V} partnership meeting trip", "who is going to meet {V} in person?"}},
	{"The {V} invoice for {M} came in at {N}00 dollars, way over budget",
		[3]string{"how much did {V} bill us for {M}?", "{V} invoice {M}", "which supplier went over budget in {M}?"}},
	{"User asked to rename the {S} repository to {S}-next before the launch",
		[3]string{"what new name was requested for the {S} repo?", "rename {S} repository", "what had to happen to the {S} repo before launching?"}},
	{"Debugged a memory leak in the {S}: the {T} client was never closed",
		[3]string{"what was causing the {S} to leak memory?", "{S} memory leak {T} client", "which client did the {S} forget to close?"}},
	{"{P} prefers code reviews in the morning and asked not to be pinged after 6pm",
		[3]string{"when does {P} like to review code?", "{P} review preference evening ping", "what time should I stop pinging {P}?"}},
	{"Set up a {T} alert that pages {P} when the {S} error rate goes above {N} percent",
		[3]string{"who gets paged if the {S} starts throwing errors?", "{S} error rate alert threshold", "what percentage of errors triggers the {S} page?"}},
	{"The {S} migration is blocked until {V} rotates our API keys",
		[3]string{"what is holding up the move of the {S}?", "{S} migration blocked {V} keys", "what are we waiting on from {V}?"}},
	{"Wrote a runbook for restoring {T} backups of the {S} from {U}",
		[3]string{"how do we recover the {S} data from a backup?", "{S} backup restore runbook", "where are the {S} backups restored from?"}},
	{"{P} found that {S} latency doubled because {T} ran out of disk in the {C} region",
		[3]string{"why did the {S} get slower in {C}?", "{C} region {T} disk full", "what made {S} response times double?"}},
	{"Postponed the {S} redesign to next quarter since {P} is on parental leave",
		[3]string{"when will the {S} redesign happen now?", "{S} redesign postponed", "why was the new design of the {S} delayed?"}},
	{"Booked a table at {R} in {C} for the team dinner on {D}",
		[3]string{"which restaurant did we reserve for the team meal in {C}?", "team dinner {C} reservation", "where are we eating together on {D}?"}},
	{"{P} suggested using feature flags in {T} for the {S} rollout",
		[3]string{"who proposed flagging the {S} release?", "{S} rollout feature flags", "what did {P} recommend for rolling out the {S}?"}},
	{"Security review found that the {S} logs {V} tokens in plain text",
		[3]string{"what did the security audit discover in the {S}?", "{S} plaintext token logging", "which secrets end up unencrypted in the {S} logs?"}},
	{"Upgraded {T} from {N}.2 to {N}.4 on the {S} cluster and {P} verified the dashboards",
		[3]string{"which {T} version does the {S} cluster run now?", "{T} upgrade {S} cluster", "who checked the dashboards after the {T} upgrade?"}},
	{"Customer {X} complained that {S} exports are missing the invoice number column",
		[3]string{"what was {X} unhappy about with the exports?", "{X} export missing column", "which column is absent from {S} exports?"}},
	{"Decided to drop support for {F} in the {S} starting in {M}",
		[3]string{"are we still supporting {F} in the {S}?", "{S} end of {F} support", "when does support for {F} end in the {S}?"}},
	{"{P} will be out sick until {D} and {Q} covers the {S} on-call",
		[3]string{"who is covering on-call for the {S}?", "{P} sick leave on-call cover", "when is {P} back from being ill?"}},
	{"Load test showed the {S} handles {N}000 requests per second before {T} saturates",
		[3]string{"what throughput can the {S} sustain?", "{S} load test requests per second", "which component saturates first under load in the {S}?"}},
	{"Moved the weekly sync with {P} from {D} to {E} afternoons",
		[3]string{"when is the weekly meeting with {P} now?", "{P} weekly sync rescheduled", "which day did the {P} check-in move to?"}},
	{"The {T} license renewal costs {N}00 euros a year and {P} approved it",
		[3]string{"how much does renewing {T} cost us?", "{T} license renewal price", "who approved paying for {T}?"}},
	{"Traced the {S} outage to an expired TLS certificate at {V}",
		[3]string{"what caused the {S} downtime?", "{S} outage expired certificate", "which vendor's certificate had lapsed when the {S} went down?"}},
	{"{P} asked for a summary of the {S} incidents to share with {X}",
		[3]string{"who wanted an incident report for {X}?", "{S} incident summary {X}", "what did {P} want to send to {X}?"}},
	{"Switched the {S} CI from {T} to {U} because builds took {N} minutes",
		[3]string{"why did we change the build system of the {S}?", "{S} slow builds CI switch", "how long were {S} builds taking?"}},
	{"{P}'s birthday is on {M} {N}th and the team is getting a cake",
		[3]string{"when is {P}'s birthday?", "{P} birthday cake", "what are we getting {P} for the celebration?"}},
	{"{P} recommended the book {B} for learning about distributed systems",
		[3]string{"what book did {P} suggest reading?", "{P} book recommendation", "what did {P} say I should read about distributed systems?"}},
	{"Backfilled {N}000 missing rows in the {S} {T} tables after the sync bug",
		[3]string{"how many rows were restored in the {S}?", "{S} backfill after sync bug", "what did we repair in the {S} after the synchronisation bug?"}},
	{"Hired a contractor from {C} to help {P} with the {S} accessibility audit",
		[3]string{"who is helping with the accessibility review of the {S}?", "{S} accessibility contractor", "where is the contractor who helps {P} based?"}},
	{"Set the {S} data retention to {N} days at the request of {X}",
		[3]string{"how long do we keep {S} data?", "{X} retention requirement", "why did the {S} retention period change?"}},
}

// evalChatter are the everyday lines around the facts: the same people,
// systems and tools, saying nothing a question asks for.
var evalChatter = []string{
	"Checked the {T} dashboards for the {S}, nothing unusual",
	"Paired with {P} on tests for the {S}",
	"Reviewed pull request {N} for the {S}",
	"Answered a question from {P} about the {T} configuration",
	"Updated the README of the {S}",
	"Standup: {P} is working on the {S}, {Q} on {T} upkeep",
	"Merged the dependency updates for the {S}",
	"Cleaned up old branches in the {S} repository",
	"{P} shared notes from the {V} call",
	"Restarted the {S} staging environment after a config change",
	"Triaged {N} new issues for the {S}",
	"Read through the {T} changelog",
	"Quick call with {P} and {Q} about priorities for the week",
	"Wrote unit tests for the {S} parser",
	"Deployed the {S} to staging, smoke tests passed",
	"{P} asked how the {S} handles retries, pointed them to the docs",
	"Lunch break",
	"Planning: next steps for the {S} are documentation and cleanup",
	"Looked at the {T} bill with {P}, roughly as expected",
	"Closed {N} stale tickets in the {S} backlog",
	"Refactored the {S} config loading",
	"{Q} demoed the {S} dashboard to the team",
	"Investigated a flaky test in the {S}, it was a race in the fixture",
	"Synced with {P} about the {C} office move",
	"Renewed the {V} sandbox account",
	"Tidied the {T} alert rules for the {S}",
	"Wrapped up the day, notes pushed",
}

var evalPools = map[byte][]string{
	'P': {"Dana", "Priya", "Marco", "Kenji", "Lena", "Omar", "Sofia", "Tariq", "Ines", "Yuki", "Bram", "Chloe"},
	'S': {"billing service", "search API", "mobile app", "checkout page", "data pipeline", "auth gateway",
		"notification worker", "reporting dashboard", "onboarding flow", "payment webhook", "image resizer", "inventory sync"},
	'T': {"Postgres", "Redis", "Kafka", "Grafana", "Terraform", "Kubernetes", "Sentry", "Airflow", "Elasticsearch",
		"Jenkins", "RabbitMQ", "Prometheus"},
	'V': {"Stripe", "Twilio", "Datadog", "PagerDuty", "Fastly", "Mailgun", "Cloudflare", "Auth0"},
	'C': {"Lisbon", "Osaka", "Denver", "Nairobi", "Krakow", "Austin", "Montreal", "Seoul"},
	'X': {"Acme Logistics", "Northwind", "Globex", "Initech", "Umbrella Health", "Hooli", "Soylent Foods", "Vandelay Imports"},
	'D': {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday"},
	'M': {"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"},
	'R': {"Casa Fado", "Sakura Tei", "The Copper Pot", "Mama Africa", "Pierogi House", "Salt Lick", "Chez Lucie", "Gogung"},
	'B': {"Designing Data-Intensive Applications", "Understanding Distributed Systems", "Database Internals", "Site Reliability Engineering"},
	'F': {"Android 9", "iOS 14", "Internet Explorer", "Windows 7", "Python 2", "32-bit ARM"},
}

// evalQuestion is a question and the session (day) that answers it.
type evalQuestion struct {
	text, style, day string
}

var evalStyles = [3]string{"paraphrase", "keywords", "indirect"}

// evalCorpus is the generated home: session logs and C4 rows per day, and
// the questions.
type evalCorpus struct {
	logs      map[string]string // day -> session log
	c4        []evalRow
	questions []evalQuestion
}

type evalRow struct {
	ts, direction, content string
}

const (
	evalDays        = 90
	evalFactsPerDay = 4
	evalChatterLen  = 40
)

var evalStart = time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)

// generateEval builds the corpus from a fixed seed: the same corpus on
// every run.
func generateEval() evalCorpus {
	rng := rand.New(rand.NewPCG(12, 2026))
	c := evalCorpus{logs: map[string]string{}}
	factNo := 0
	for d := range evalDays {
		day := evalStart.AddDate(0, 0, d)
		date := day.Format(time.DateOnly)
		inC4 := d%3 == 2 // every third day's facts were said in conversation
		lines := make([]string, 0, evalChatterLen+evalFactsPerDay)
		for range evalChatterLen {
			lines = append(lines, fill(evalChatter[rng.IntN(len(evalChatter))], rng))
		}
		var facts []string
		for range evalFactsPerDay {
			f := evalFacts[factNo%len(evalFacts)]
			vars := pick(rng)
			said := expand(f.say, vars)
			facts = append(facts, said)
			// two of the three styles for each fact, in turn
			for k := range 2 {
				s := (factNo + k) % 3
				c.questions = append(c.questions, evalQuestion{text: expand(f.ask[s], vars), style: evalStyles[s], day: date})
			}
			factNo++
		}
		if !inC4 {
			for _, f := range facts {
				at := rng.IntN(len(lines) + 1)
				lines = append(lines[:at], append([]string{f}, lines[at:]...)...)
			}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "# Session Log: %s\n\n", date)
		for i, l := range lines {
			fmt.Fprintf(&b, "**%02d:%02d** - %s\n", 8+i*10/60, i*10%60, l)
		}
		c.logs[date] = b.String()
		if inC4 {
			for i, f := range facts {
				ts := day.Add(time.Duration(9*60+i*7) * time.Minute)
				c.c4 = append(c.c4,
					evalRow{ts.Format(time.DateTime), "in", f},
					evalRow{ts.Add(time.Minute).Format(time.DateTime), "out", "Noted, I'll keep that in mind."})
			}
		}
		for i := range 6 { // chatter in C4 every day
			ts := day.Add(time.Duration(14*60+i*11) * time.Minute)
			c.c4 = append(c.c4, evalRow{ts.Format(time.DateTime), []string{"in", "out"}[i%2], fill(evalChatter[rng.IntN(len(evalChatter))], rng)})
		}
	}
	return c
}

// pick chooses a value for every slot of a fact; {Q} differs from {P}, {U}
// from {T} and {E} from {D}.
func pick(rng *rand.Rand) map[byte]string {
	vars := map[byte]string{}
	for _, k := range []byte("PSTVCXDMRBF") { // in a fixed order: the same draws on every run
		vars[k] = evalPools[k][rng.IntN(len(evalPools[k]))]
	}
	vars['Q'] = other(rng, evalPools['P'], vars['P'])
	vars['U'] = other(rng, evalPools['T'], vars['T'])
	vars['E'] = other(rng, evalPools['D'], vars['D'])
	vars['N'] = fmt.Sprint(2 + rng.IntN(97))
	return vars
}

func other(rng *rand.Rand, pool []string, not string) string {
	for {
		if v := pool[rng.IntN(len(pool))]; v != not {
			return v
		}
	}
}

func fill(s string, rng *rand.Rand) string { return expand(s, pick(rng)) }

func expand(s string, vars map[byte]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '{' && i+2 < len(s) && s[i+2] == '}' {
			b.WriteString(vars[s[i+1]])
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
