package provider

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// sseEvent is one server-sent event.
//
// Type is the "event:" field (empty when the server sent none), Data the
// "data:" lines joined by "\n", ID the last "id:" seen on the stream.
type sseEvent struct {
	Type string
	Data string
	ID   string

	// raw is the data as bytes instead of Data, from next: a view of the
	// reader's buffer, valid until the following call.
	raw []byte
}

// maxSSELine is the longest line an sseReader accepts, in bytes.
const maxSSELine = 16 << 20

// errSSELineTooLong is returned by sseReader.Next for a line longer than
// maxSSELine.
var errSSELineTooLong = errors.New("sse: line longer than MaxSSELine")

// sseReader splits a text/event-stream body into events, following the
// WHATWG event-stream rules:
//
//   - lines end in "\n", "\r\n" or a lone "\r", and may be split across
//     any number of reads;
//   - a leading UTF-8 byte order mark is skipped;
//   - lines starting with ":" are comments and ignored;
//   - "field: value" loses one space after the colon; a line without a
//     colon is a field with an empty value; unknown fields and "retry" are
//     ignored;
//   - several "data:" lines in one event are joined with "\n";
//   - a blank line dispatches the event, but only if it had a data line.
//
// One leniency: when the stream ends, an event whose lines were all complete
// but which lacks its closing blank line is still delivered; a final line
// without a line terminator is incomplete and dropped.
//
// sseReader does not interpret the data ("[DONE]" is the OpenAI caller's
// business). It is not safe for concurrent use.
type sseReader struct {
	r      io.Reader
	buf    []byte
	pos    int
	err    error // sticky read error
	skipLF bool  // the previous line ended in '\r'; a following '\n' belongs to it
	bom    bool  // the BOM check has been done

	typ     string
	data    []byte
	hasData bool
	id      string
}

// newSSEReader returns a reader of the events in r.
func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: r}
}

// Next returns the next event. At the end of the stream it returns io.EOF;
// a read error of the underlying reader is returned as is, and a line longer
// than maxSSELine yields errSSELineTooLong. After an error every call
// returns the same error.
func (s *sseReader) Next() (sseEvent, error) {
	ev, err := s.next()
	ev.Data, ev.raw = string(ev.raw), nil
	return ev, err
}

// next is Next with the data left in raw, not copied into Data: a stream
// decoded straight from the bytes needs no string per event.
func (s *sseReader) next() (sseEvent, error) {
	for {
		line, err := s.readLine()
		if err != nil {
			if err == io.EOF && s.hasData {
				return s.dispatch(), nil
			}
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if s.hasData {
				return s.dispatch(), nil
			}
			s.typ = ""
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			if s.hasData {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, value...)
			s.hasData = true
		case "event":
			s.typ = string(value)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				s.id = string(value)
			}
		}
	}
}

func (s *sseReader) dispatch() sseEvent {
	ev := sseEvent{Type: s.typ, ID: s.id, raw: s.data}
	if s.data == nil {
		ev.raw = []byte{}
	}
	s.typ, s.data, s.hasData = "", s.data[:0], false
	return ev
}

// readLine returns the next complete line without its terminator. The slice
// is valid until the next call. A trailing line without terminator at the
// end of the stream is dropped and io.EOF returned.
func (s *sseReader) readLine() ([]byte, error) {
	for {
		if s.skipLF && s.pos < len(s.buf) {
			if s.buf[s.pos] == '\n' {
				s.pos++
			}
			s.skipLF = false
		}
		if !s.bom && len(s.buf)-s.pos >= 3 {
			s.bom = true
			if bytes.HasPrefix(s.buf[s.pos:], []byte("\xef\xbb\xbf")) {
				s.pos += 3
			}
		}
		rest := s.buf[s.pos:]
		if s.bom || s.err != nil {
			if i := bytes.IndexAny(rest, "\r\n"); i >= 0 {
				s.pos += i + 1
				s.skipLF = rest[i] == '\r'
				return rest[:i], nil
			}
		}
		if s.err != nil {
			return nil, s.err
		}
		if len(rest) > maxSSELine {
			s.err = errSSELineTooLong
			return nil, s.err
		}
		s.fill()
	}
}

// fill reads more input, compacting the buffer first.
func (s *sseReader) fill() {
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:])
		s.buf = s.buf[:n]
		s.pos = 0
	}
	if cap(s.buf)-len(s.buf) < 512 {
		nb := make([]byte, len(s.buf), 2*cap(s.buf)+4096)
		copy(nb, s.buf)
		s.buf = nb
	}
	for tries := 0; tries < 100; tries++ {
		n, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
		if n < 0 || n > cap(s.buf)-len(s.buf) {
			s.err = fmt.Errorf("sse: reader returned invalid count %d", n)
			return
		}
		s.buf = s.buf[:len(s.buf)+n]
		if err != nil {
			s.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	s.err = io.ErrNoProgress
}
