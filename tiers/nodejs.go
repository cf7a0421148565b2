package tiers

import (
	"errors"
	"io/fs"
	"math"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// The helpers in this file reproduce the few places where Node.js turns
// bytes, strings and times into text, so that commands print byte for byte
// what the Node scripts print.

// nodeString decodes b as Node's buffer.toString('utf8') does: every maximal
// invalid subpart becomes one U+FFFD (the WHATWG UTF-8 decoder), which is not
// what strings.ToValidUTF8 or a Go range loop do.
func nodeString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 16)
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			sb.WriteByte(c)
			i++
			continue
		}
		n, lo, hi := utf8Lead(c)
		j := i + 1
		for k := 1; k < n && j < len(b) && b[j] >= lo && b[j] <= hi; k++ {
			lo, hi = 0x80, 0xBF
			j++
		}
		if n > 0 && j-i == n {
			sb.Write(b[i:j])
		} else {
			sb.WriteRune(utf8.RuneError)
		}
		i = j
	}
	return sb.String()
}

// utf8Lead gives the sequence length of a lead byte and the range allowed
// for the byte after it; n is 0 for a byte that cannot start a sequence.
func utf8Lead(c byte) (n int, lo, hi byte) {
	switch {
	case c >= 0xC2 && c <= 0xDF:
		return 2, 0x80, 0xBF
	case c == 0xE0:
		return 3, 0xA0, 0xBF
	case c == 0xED:
		return 3, 0x80, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		return 3, 0x80, 0xBF
	case c == 0xF0:
		return 4, 0x90, 0xBF
	case c >= 0xF1 && c <= 0xF3:
		return 4, 0x80, 0xBF
	case c == 0xF4:
		return 4, 0x80, 0x8F
	}
	return 0, 0, 0
}

// appendJSONString quotes s as JSON.stringify does: unlike encoding/json it
// leaves <, >, &, U+2028 and U+2029 alone and writes \b and \f short. s must
// be valid UTF-8 (see nodeString).
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// jsonString is appendJSONString for a single value.
func jsonString(s string) string { return string(appendJSONString(nil, s)) }

// isoMillis formats t as Date.prototype.toISOString: UTC, milliseconds, Z.
func isoMillis(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// nodeStatTime is a file time as fs.Stats gives it: mtimeMs computed in
// float64 from seconds and nanoseconds, then rounded to a whole millisecond.
func nodeStatTime(t time.Time) time.Time {
	ms := float64(t.Unix())*1e3 + float64(t.Nanosecond())/1e6
	return time.UnixMilli(int64(math.Floor(ms + 0.5)))
}

// nodeNow is Date.now(): the clock truncated to the millisecond.
func nodeNow(t time.Time) time.Time { return t.Truncate(time.Millisecond) }

// parseJSDate is new Date("YYYY-MM-DD") for a string already matching
// \d{4}-\d{2}-\d{2}: UTC midnight; V8 accepts any day 01-31 in any month
// (2026-02-30 is 2 March) and rejects month 00 or 13+ and day 00 or 32+.
func parseJSDate(s string) (time.Time, bool) {
	y, _ := strconv.Atoi(s[0:4])
	m, _ := strconv.Atoi(s[5:7])
	d, _ := strconv.Atoi(s[8:10])
	if m < 1 || m > 12 || d < 1 || d > 31 {
		return time.Time{}, false
	}
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC), true
}

// isDateName reports whether s is \d{4}-\d{2}-\d{2} (ASCII digits, as in JS).
func isDateName(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i := 0; i < 10; i++ {
		if i != 4 && i != 7 && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return true
}

// formatSize is memory-status.js's formatSize: bytes below 1 KiB, else KiB
// with one decimal rounded half up as Number.prototype.toFixed does (the
// quotient is exact in binary, so integer arithmetic gives the same digits).
func formatSize(bytes int64) string {
	if bytes < 1024 {
		return strconv.FormatInt(bytes, 10) + "B"
	}
	tenths := (bytes*10 + 512) / 1024
	return strconv.FormatInt(tenths/10, 10) + "." + strconv.FormatInt(tenths%10, 10) + "KB"
}

// JSObject is a JSON object whose keys keep their insertion order, as a
// JavaScript object literal's do; with JSArray, strings, ints and bools it
// is enough to print what JSON.stringify(value, null, 2) prints.
type JSObject []JSField

// JSField is one key of a JSObject.
type JSField struct {
	Key   string
	Value any
}

// JSArray is a JSON array.
type JSArray []any

// AppendIndentedJSON appends v as JSON.stringify(v, null, 2) would print it.
// Values other than JSObject, JSArray, string, int, int64 and bool print as
// null.
func AppendIndentedJSON(dst []byte, v any, indent string) []byte {
	inner := indent + "  "
	switch v := v.(type) {
	case JSObject:
		return appendJSONList(dst, '{', '}', len(v), indent, func(dst []byte, i int) []byte {
			dst = appendJSONString(dst, v[i].Key)
			dst = append(dst, ": "...)
			return AppendIndentedJSON(dst, v[i].Value, inner)
		})
	case JSArray:
		return appendJSONList(dst, '[', ']', len(v), indent, func(dst []byte, i int) []byte {
			return AppendIndentedJSON(dst, v[i], inner)
		})
	case string:
		return appendJSONString(dst, v)
	case int:
		return strconv.AppendInt(dst, int64(v), 10)
	case int64:
		return strconv.AppendInt(dst, v, 10)
	case bool:
		return strconv.AppendBool(dst, v)
	}
	return append(dst, "null"...)
}

// appendJSONList prints n members between open and close, one per line
// indented two spaces deeper, or just open and close when n is 0.
func appendJSONList(dst []byte, open, close byte, n int, indent string, member func([]byte, int) []byte) []byte {
	dst = append(dst, open)
	for i := 0; i < n; i++ {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(append(dst, '\n'), indent+"  "...)
		dst = member(dst, i)
	}
	if n > 0 {
		dst = append(append(dst, '\n'), indent...)
	}
	return append(dst, close)
}

// isMissing is fs.existsSync answering false: no such file, or a path
// through something that is not a directory.
func isMissing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}
