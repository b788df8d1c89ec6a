package builtin

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"github.com/piwasm/pi/core/imagefit"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/piwasm/pi/core/tool"
)

// maxImageBytes bounds an attached image: providers refuse larger ones, and
// pi does not resize.
const maxImageBytes = 5 << 20

// maxScaledSourceBytes bounds an image read to be scaled down.
const maxScaledSourceBytes = 50 << 20

// sniffImage names the image type of a file by its first bytes, or "".
func sniffImage(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return "image/gif"
	case len(head) >= 12 && bytes.Equal(head[:4], []byte("RIFF")) && bytes.Equal(head[8:12], []byte("WEBP")):
		return "image/webp"
	}
	return ""
}

func (e Env) runRead(ctx context.Context, call tool.Call, _ tool.Update) (tool.Result, error) {
	path := strArg(call.Args, "path")
	_, real, err := e.open("read", Read, path)
	if err != nil {
		return tool.ErrorResult("%v", err), nil
	}
	info, err := e.FS.Stat(real)
	if err != nil {
		return tool.ErrorResult("%s", describeFSError("read", path, err)), nil
	}
	if info.IsDir() {
		return tool.ErrorResult("%s is a directory; use ls to list it", path), nil
	}
	f, err := e.FS.Open(real)
	if err != nil {
		return tool.ErrorResult("%s", describeFSError("read", path, err)), nil
	}
	defer f.Close()

	// The head is sized to the file when it is smaller: one byte more than
	// its size, so a short read tells that it ended.
	const headSize = 8192
	head := make([]byte, min(headSize, max(info.Size(), 0)+1))
	n, err := io.ReadFull(f, head)
	if n == len(head) && n < headSize && err == nil {
		// Larger than its size said (a file being written, a /proc
		// file): the whole head is what the checks below look at.
		head = append(head, make([]byte, headSize-n)...)
		var m int
		m, err = io.ReadFull(f, head[n:])
		n += m
	}
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return tool.ErrorResult("%s", describeFSError("read", path, err)), nil
	}
	head = head[:n]
	if mime := sniffImage(head); mime != "" {
		return readImage(f, head, mime, path, !e.KeepImageSize)
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return tool.TextResult(fmt.Sprintf("[%s looks binary (%s); it is not shown as text. Inspect it with bash, e.g. xxd %s | head]",
			path, formatSize(int(info.Size())), shellQuote(path))), nil
	}

	offset, hasOffset := numArg(call.Args, "offset")
	start := 0
	if hasOffset && offset > 1 {
		start = int(math.Min(math.Floor(offset)-1, math.MaxInt32))
	}
	end := math.MaxInt
	if l, ok := numArg(call.Args, "limit"); ok {
		lim := int(math.Max(0, math.Min(math.Floor(l), math.MaxInt32)))
		end = start + lim
	}
	sel := lineSelector{start: start, end: end, maxLines: tool.DefaultMaxLines, maxBytes: tool.DefaultMaxBytes}
	// Room for the whole file when it is small (most are), for as much as
	// a read shows when it is not.
	sel.stored = make([]byte, 0, min(int(info.Size()), tool.DefaultMaxBytes)+64)
	sel.feed(head)
	// A short head means the file ended inside it: most files a model reads
	// do, and a 256 KiB buffer for each of them was most of what a session
	// allocated. A longer file is read on in blocks no larger than it.
	var buf []byte
	if n == headSize {
		buf = make([]byte, min(256<<10, max(int(info.Size())-n, 0)+4096))
	}
	for buf != nil {
		if err := ctx.Err(); err != nil {
			return tool.Result{}, err
		}
		n, rerr := f.Read(buf)
		sel.feed(buf[:n])
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return tool.ErrorResult("%s", describeFSError("read", path, rerr)), nil
		}
	}
	sel.finish()

	total := sel.totalLines()
	if start > 0 && start >= max(total, 1) {
		return tool.ErrorResult("Offset %d is past the end of %s, which has %d line%s.", start+1, path, total, plural(total)), nil
	}
	first := start + 1
	text := string(sel.stored)
	if start == 0 {
		text = strings.TrimPrefix(text, "\ufeff")
	}
	tr := tool.TruncateHead(text, tool.DefaultMaxLines, tool.DefaultMaxBytes)
	// The stored lines stop a little past the caps; the counts come from the
	// whole selection.
	tr.TotalLines, tr.TotalBytes = sel.selLines, sel.selBytes
	if !tr.Truncated && sel.overflow {
		tr.Truncated, tr.By = true, "lines"
	}
	switch {
	case tr.FirstLineTooLong:
		return tool.Result{
			Content: []tool.Part{{Type: "text", Text: fmt.Sprintf(
				"[Line %d of %s is %s, more than the %s a read can show. Look at it with bash instead, e.g. sed -n '%dp' %s | head -c %d]",
				first, path, formatSize(sel.firstLineBytes), formatSize(tool.DefaultMaxBytes), first, shellQuote(path), tool.DefaultMaxBytes)}},
			Details: details(map[string]any{"truncation": tr}),
		}, nil
	case tr.Truncated:
		last := first + tr.ShownLines - 1
		why := ""
		if tr.By == "bytes" {
			why = fmt.Sprintf(", cut at %s", formatSize(tool.DefaultMaxBytes))
		}
		shown := fmt.Sprintf("Lines %d-%d", first, last)
		if first == last {
			shown = fmt.Sprintf("Line %d", first)
		}
		out := fmt.Sprintf("%s\n\n[%s of %d shown%s. Continue with offset=%d.]", tr.Text, shown, total, why, last+1)
		return tool.Result{Content: []tool.Part{{Type: "text", Text: out}}, Details: details(map[string]any{"truncation": tr})}, nil
	case end < total:
		return tool.TextResult(fmt.Sprintf("%s\n\n[%d more line%s after this. Continue with offset=%d.]", tr.Text, total-end, plural(total-end), end+1)), nil
	}
	if sel.line > 0 && !sel.lineOpen {
		// Shown to its end, the file keeps its final newline, as the
		// established harness shows it: whether a file ends with one is
		// something a model rewriting it needs to see.
		return tool.TextResult(tr.Text + "\n"), nil
	}
	return tool.TextResult(tr.Text), nil
}

func readImage(f io.Reader, head []byte, mime, path string, fit bool) (tool.Result, error) {
	limit := int64(maxImageBytes)
	if fit {
		// A large image may fit once scaled down.
		limit = maxScaledSourceBytes
	}
	rest, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return tool.ErrorResult("%s", describeFSError("read", path, err)), nil
	}
	data := append(head, rest...)
	note := ""
	if fit && int64(len(data)) <= limit {
		out, outMime, w, h, resized, err := imagefit.Fit(data, mime)
		if err != nil {
			return tool.ErrorResult("%s: %v", path, err), nil
		}
		if resized {
			data, mime = out, outMime
			note = fmt.Sprintf(", scaled down to %d×%d", w, h)
		}
	}
	if len(data) > maxImageBytes {
		return tool.TextResult(fmt.Sprintf("[%s is a %s image over %s; it is too large to attach.]", path, mime, formatSize(maxImageBytes))), nil
	}
	return tool.Result{Content: []tool.Part{
		{Type: "text", Text: fmt.Sprintf("Image %s [%s, %s%s] attached.", path, mime, formatSize(len(data)), note)},
		{Type: "image", Data: base64.StdEncoding.EncodeToString(data), MimeType: mime},
	}}, nil
}

// lineSelector streams a file and keeps only the lines of [start, end) that
// truncation could show, so memory stays bounded whatever the file's size.
type lineSelector struct {
	start, end         int
	maxLines, maxBytes int

	line     int // index of the line being read
	lineOpen bool
	cur      []byte // the selected line being read, while it is kept
	curBytes int

	stored      []byte // the kept lines, each valid UTF-8, joined by newlines
	nStored     int    // how many
	storedBytes int
	overflow    bool // lines were selected beyond what is stored

	selLines, selBytes int
	firstLineBytes     int
}

func (s *lineSelector) selected() bool { return s.line >= s.start && s.line < s.end }

// storing reports whether another selected line may still be shown: one
// past the caps is kept so truncation decides as it would on the whole text.
func (s *lineSelector) storing() bool {
	return s.nStored <= s.maxLines && s.storedBytes <= s.maxBytes
}

func (s *lineSelector) feed(b []byte) {
	if len(b) == 0 {
		return
	}
	for len(b) > 0 {
		if s.line >= s.end || (s.selected() && !s.storing()) {
			// Past what can be shown: only count.
			n := bytes.Count(b, []byte{'\n'})
			if s.selected() {
				sel := min(n, s.end-s.line)
				s.selLines += sel
				s.overflow = true
				if n > 0 && s.end-s.line <= n {
					// The selection ends inside this chunk.
					idx := nthIndex(b, '\n', s.end-s.line)
					s.selBytes += idx
				} else {
					s.selBytes += len(b)
				}
			}
			s.line += n
			s.lineOpen = b[len(b)-1] != '\n'
			return
		}
		nl := bytes.IndexByte(b, '\n')
		piece := b
		if nl >= 0 {
			piece = b[:nl]
		}
		if s.selected() {
			s.lineOpen = true
			if s.curBytes <= s.maxBytes {
				s.cur = append(s.cur, piece...)
			}
			s.curBytes += len(piece)
			s.selBytes += len(piece)
			if nl >= 0 {
				s.finishLine()
				if s.line+1 < s.end {
					s.selBytes++ // the newline between selected lines
				}
			}
		}
		if nl < 0 {
			s.lineOpen = true
			return
		}
		s.line++
		s.lineOpen = false
		b = b[nl+1:]
	}
}

func nthIndex(b []byte, c byte, n int) int {
	pos := 0
	for i := 0; i < n; i++ {
		j := bytes.IndexByte(b[pos:], c)
		if j < 0 {
			return len(b)
		}
		pos += j + 1
	}
	return pos - 1
}

func (s *lineSelector) finishLine() {
	if s.selLines == 0 {
		s.firstLineBytes = s.curBytes
	}
	if s.nStored > 0 {
		s.storedBytes++
		s.stored = append(s.stored, '\n')
	}
	n := len(s.stored)
	s.stored = appendValidUTF8(s.stored, s.cur)
	s.storedBytes += len(s.stored) - n
	s.nStored++
	s.selLines++
	s.cur, s.curBytes = s.cur[:0], 0
}

func (s *lineSelector) finish() {
	if s.lineOpen && s.selected() {
		if s.storing() {
			s.finishLine()
		} else {
			s.selLines++
			s.overflow = true
		}
	}
}

// totalLines counts the file's lines: a final newline ends the last line
// rather than starting an empty one.
func (s *lineSelector) totalLines() int {
	if s.lineOpen {
		return s.line + 1
	}
	return s.line
}

// toValidUTF8 replaces each invalid byte with U+FFFD, as a decoder would.
func toValidUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return string(appendValidUTF8(nil, b))
}

// appendValidUTF8 appends b to dst with each invalid byte replaced by
// U+FFFD. The read tool keeps a file's lines in one buffer with it (a
// string per line was an allocation per line of every read).
func appendValidUTF8(dst, b []byte) []byte {
	if utf8.Valid(b) {
		return append(dst, b...)
	}
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
			b = b[1:]
			continue
		}
		dst = append(dst, b[:size]...)
		b = b[size:]
	}
	return dst
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// shellQuote quotes p for a bash command line when it needs it.
func shellQuote(p string) string {
	if p != "" && strings.IndexFunc(p, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '~' || r == '@' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}
