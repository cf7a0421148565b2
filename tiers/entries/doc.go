// Package entries parses the markdown of a tier file into its entries: a
// decision, a project, a preference, a session line, a core.md section or
// a generic reference entry, each with its fields, its byte span, its id
// comment and, when malformed, why; and the format of the comments an
// entry carries (its id, its team line). The format follows from the file's
// name. Parsing never fails and is bounded (file size, nesting depth), so
// a hostile file costs no more than a large one. It reads no file itself:
// tiers.ParseFile reads one under the rules every tier read follows.
package entries
