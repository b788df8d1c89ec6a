package tool

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// The shared output limits: whichever is reached first cuts.
const (
	DefaultMaxLines = 2000
	DefaultMaxBytes = 50 * 1024
)

// Truncation describes a cut made by TruncateHead or TruncateTail.
type Truncation struct {
	// Text is the kept text; it is left out of the JSON form, which goes
	// into result details next to the content that already holds it.
	Text      string `json:"-"`
	Truncated bool   `json:"truncated"`
	// By is "lines" or "bytes" when Truncated, else "".
	By         string `json:"truncatedBy,omitempty"`
	TotalLines int    `json:"totalLines"`
	ShownLines int    `json:"outputLines"`
	TotalBytes int    `json:"totalBytes"`
	ShownBytes int    `json:"outputBytes"`
	// FirstLineTooLong is set by TruncateHead when the very first line is
	// over the byte limit, so nothing could be shown.
	FirstLineTooLong bool `json:"firstLineExceedsLimit,omitempty"`
	// LastLinePartial is set by TruncateTail when the last line alone was
	// over the byte limit and only its end is shown.
	LastLinePartial bool `json:"lastLinePartial,omitempty"`
	// MaxLines and MaxBytes are the limits the cut was made at.
	MaxLines int `json:"maxLines"`
	MaxBytes int `json:"maxBytes"`
}

// maxSafeInteger is the largest integer a JavaScript number holds exactly:
// the established harness's "no line limit".
const maxSafeInteger = 1<<53 - 1

// MarshalJSON writes the established harness's truncation record, in its
// order, with truncatedBy null when nothing was cut and both flags always
// present. Its kept text (its "content") is left out: the result's content
// already holds it, and a copy would double every cut output in the session.
func (t Truncation) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 224)
	b = append(b, `{"truncated":`...)
	b = strconv.AppendBool(b, t.Truncated)
	b = append(b, `,"truncatedBy":`...)
	if t.By == "" {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendQuote(b, t.By) // "lines" or "bytes"
	}
	for _, f := range [...]struct {
		key string
		n   int
	}{{`,"totalLines":`, t.TotalLines}, {`,"totalBytes":`, t.TotalBytes}, {`,"outputLines":`, t.ShownLines}, {`,"outputBytes":`, t.ShownBytes}} {
		b = append(b, f.key...)
		b = strconv.AppendInt(b, int64(f.n), 10)
	}
	b = append(b, `,"lastLinePartial":`...)
	b = strconv.AppendBool(b, t.LastLinePartial)
	b = append(b, `,"firstLineExceedsLimit":`...)
	b = strconv.AppendBool(b, t.FirstLineTooLong)
	b = append(b, `,"maxLines":`...)
	b = strconv.AppendInt(b, int64(min(t.MaxLines, maxSafeInteger)), 10)
	b = append(b, `,"maxBytes":`...)
	b = strconv.AppendInt(b, int64(min(t.MaxBytes, maxSafeInteger)), 10)
	return append(b, '}'), nil
}

// countLines counts lines the way people do: a final newline does not start
// another line, and empty text has none.
func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// TruncateHead keeps the beginning of s within maxLines and maxBytes, never
// ending on a partial line. A final newline is dropped when a cut is made.
func TruncateHead(s string, maxLines, maxBytes int) Truncation {
	t := Truncation{TotalLines: countLines(s), TotalBytes: len(s), MaxLines: maxLines, MaxBytes: maxBytes}
	if t.TotalLines <= maxLines && t.TotalBytes <= maxBytes {
		t.Text, t.ShownLines, t.ShownBytes = s, t.TotalLines, t.TotalBytes
		return t
	}
	t.Truncated = true
	first := s
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		first = s[:i]
	}
	if len(first) > maxBytes {
		t.By, t.FirstLineTooLong = "bytes", true
		return t
	}
	// Walk line ends until either limit would be passed. end is the byte
	// length of the kept text without its final newline.
	end, lines := 0, 0
	t.By = "lines"
	for lines < maxLines {
		start := end
		if lines > 0 {
			start++ // the newline before this line
		}
		if start > len(s) || (lines > 0 && start == len(s)) {
			break
		}
		next := len(s)
		if i := strings.IndexByte(s[start:], '\n'); i >= 0 {
			next = start + i
		}
		if next > maxBytes {
			t.By = "bytes"
			break
		}
		end, lines = next, lines+1
	}
	t.Text, t.ShownLines, t.ShownBytes = s[:end], lines, end
	return t
}

// TruncateTail keeps the end of s within maxLines and maxBytes. Whole lines
// are kept, except when the last line alone is over maxBytes: then its end is
// kept, starting on a character boundary, and LastLinePartial is set.
func TruncateTail(s string, maxLines, maxBytes int) Truncation {
	t := Truncation{TotalLines: countLines(s), TotalBytes: len(s), MaxLines: maxLines, MaxBytes: maxBytes}
	if t.TotalLines <= maxLines && t.TotalBytes <= maxBytes {
		t.Text, t.ShownLines, t.ShownBytes = s, t.TotalLines, t.TotalBytes
		return t
	}
	t.Truncated = true
	body := strings.TrimSuffix(s, "\n")
	// start is where the kept text begins; each step takes one more line
	// from the end while both limits allow.
	start, lines := len(body), 0
	t.By = "lines"
	for lines < maxLines {
		var ls int
		if lines == 0 {
			ls = strings.LastIndexByte(body, '\n') + 1
		} else {
			if start == 0 {
				break
			}
			ls = strings.LastIndexByte(body[:start-1], '\n') + 1
		}
		if len(body)-ls > maxBytes {
			t.By = "bytes"
			if lines == 0 {
				cut := len(body) - maxBytes
				for cut < len(body) && !utf8.RuneStart(body[cut]) {
					cut++
				}
				start, lines, t.LastLinePartial = cut, 1, true
			}
			break
		}
		start, lines = ls, lines+1
	}
	t.Text, t.ShownLines, t.ShownBytes = body[start:], lines, len(body)-start
	return t
}
