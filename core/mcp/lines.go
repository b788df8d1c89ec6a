package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// jsonLines passes on the lines of a stdio server's output that can be
// JSON-RPC messages (a JSON object or array) and hands every other line to
// skip. The SDK reads the output as one stream of JSON values, so a single
// stray line (a banner, a debug print, a library's warning on stdout) would
// otherwise end the connection and drop the server's tools for the rest of
// the session. A line longer than max is skipped too, as the SDK would
// refuse it.
type jsonLines struct {
	r       *bufio.Reader
	max     int
	skip    func(line []byte, tooLong bool)
	pending []byte
}

func newJSONLines(r io.Reader, max int, skip func(line []byte, tooLong bool)) *jsonLines {
	return &jsonLines{r: bufio.NewReaderSize(r, 64<<10), max: max, skip: skip}
}

func (j *jsonLines) Read(b []byte) (int, error) {
	for len(j.pending) == 0 {
		line, tooLong, err := j.line()
		if len(line) > 0 || tooLong {
			t := bytes.TrimSpace(line)
			switch {
			case tooLong:
				j.skip(line, true)
			case len(t) == 0:
			case (t[0] == '{' || t[0] == '[') && json.Valid(t):
				j.pending = append(t, '\n')
			default:
				j.skip(t, false)
			}
		}
		if err != nil && len(j.pending) == 0 {
			return 0, err
		}
		if err != nil {
			break
		}
	}
	n := copy(b, j.pending)
	j.pending = j.pending[n:]
	return n, nil
}

// line reads up to the next newline; past max bytes it discards the rest
// of the line and reports it too long (returning its start).
func (j *jsonLines) line() (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := j.r.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > j.max {
				tooLong = true
				buf = append(buf, chunk...)[:min(len(buf)+len(chunk), 200)]
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return buf, tooLong, err
	}
}
