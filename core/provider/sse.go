package provider

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Event is one server-sent event.
//
// Type is the "event:" field (empty when the server sent none), Data the
// "data:" lines joined by "\n", ID the last "id:" seen on the stream.
type Event struct {
	Type string
	Data string
	ID   string
}

// MaxSSELine is the longest line an SSEReader accepts, in bytes.
const MaxSSELine = 16 << 20

// ErrSSELineTooLong is returned by SSEReader.Next for a line longer than
// MaxSSELine.
var ErrSSELineTooLong = errors.New("sse: line longer than MaxSSELine")

// SSEReader splits a text/event-stream body into events, following the
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
// SSEReader does not interpret the data ("[DONE]" is the OpenAI caller's
// business). It is not safe for concurrent use.
type SSEReader struct {
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

// NewSSEReader returns a reader of the events in r.
func NewSSEReader(r io.Reader) *SSEReader {
	return &SSEReader{r: r}
}

// Next returns the next event. At the end of the stream it returns io.EOF;
// a read error of the underlying reader is returned as is, and a line longer
// than MaxSSELine yields ErrSSELineTooLong. After an error every call
// returns the same error.
func (s *SSEReader) Next() (Event, error) {
	for {
		line, err := s.readLine()
		if err != nil {
			if err == io.EOF && s.hasData {
				return s.dispatch(), nil
			}
			return Event{}, err
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

func (s *SSEReader) dispatch() Event {
	ev := Event{Type: s.typ, Data: string(s.data), ID: s.id}
	s.typ, s.data, s.hasData = "", s.data[:0], false
	return ev
}

// readLine returns the next complete line without its terminator. The slice
// is valid until the next call. A trailing line without terminator at the
// end of the stream is dropped and io.EOF returned.
func (s *SSEReader) readLine() ([]byte, error) {
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
		if len(rest) > MaxSSELine {
			s.err = ErrSSELineTooLong
			return nil, s.err
		}
		s.fill()
	}
}

// fill reads more input, compacting the buffer first.
func (s *SSEReader) fill() {
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
