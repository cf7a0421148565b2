// Package secretscan asks the secret scanner, a binary of its own
// (zylos-memory-scan, beside zylos-memory), whether texts hold
// credentials: team memory shares an entry only when the scanner finds
// none in it. This package holds both sides of the wire between them, and
// the client (Scan, Binary); the detector itself is in secretscan/gitleaks
// and is linked into the scanner alone.
//
// The wire is one JSON request on the scanner's stdin and one JSON answer
// on its stdout, each naming the protocol it speaks:
//
//	{"protocol":1,"texts":["…","…"]}
//	{"protocol":1,"rules":{"github-pat":"…"},"findings":[{"item":0,"rule":"github-pat","line":3}]}
//
// An answer names each text by its index, the rule that matched, the line
// (1-based) within the text, and each rule's description once: never the
// secret nor the text around it, so that neither lands in a log, an error
// or a report. A scanner that speaks another protocol is refused, with
// the two versions named, on either side. Whatever goes wrong between the
// two (no scanner, a crash, an answer that does not parse or does not fit
// the request) is an error, and the caller shares nothing: the check
// fails closed.
package secretscan
