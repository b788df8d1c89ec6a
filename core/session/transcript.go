package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/piwasm/pi/core/prompt"
)

// FormatVersion is the version written in a session file's header.
const FormatVersion = 1

// Entry types.
const (
	TypeSession    = "session"    // the header, first line only
	TypeMessage    = "message"    // a user, assistant or system message
	TypeContext    = "context"    // a runtime-context snapshot (sent as a user message)
	TypeProjection = "projection" // how a rendered prompt entered the request history
	TypeRequest    = "request"    // a request was sent at this point
	TypeError      = "error"      // a request failed
)

// Header is the first line of a session file.
type Header struct {
	Type      string `json:"type"`
	Version   int    `json:"version"`
	ID        string `json:"id"`
	Cwd       string `json:"cwd"`
	Timestamp string `json:"timestamp"`
}

// Entry is one line of a session file after the header. Only the fields of
// its type are set. Raw keeps the line as read so that entries of unknown
// types pass through unchanged.
type Entry struct {
	Type string `json:"type"`
	// TypeMessage
	Message   *prompt.Message `json:"message,omitempty"`
	Extension string          `json:"extension,omitempty"`
	// TypeContext and TypeError
	Text string `json:"text,omitempty"`
	// TypeProjection
	Commits      []ProjectionCommit `json:"commits,omitempty"`
	InHistory    bool               `json:"inHistory,omitempty"`
	StartsSeries bool               `json:"startsSeries,omitempty"`
	// TypeRequest
	Route string `json:"route,omitempty"`
	API   string `json:"api,omitempty"`
	// Forced names the extension whose forced prompt replaced the system
	// text of this request. The text itself is never stored, so a replay
	// of a forced request shows the structured prompt instead.
	Forced string `json:"forced,omitempty"`

	Raw json.RawMessage `json:"-"`
}

// ProjectionCommit is a prompt.Commit as recorded: Text is the full prompt
// the node stands for (what later decisions compare against); Content is
// what the request carries for it when that differs (an update note).
type ProjectionCommit struct {
	Op      string  `json:"op"`
	Seq     int     `json:"seq"`
	Text    string  `json:"text"`
	Content *string `json:"content,omitempty"`
}

// Problem is something wrong in a session file that loading went past.
type Problem struct {
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// Transcript is a session file: its header and its entries, appended to
// disk one line per entry. A Transcript with no path lives in memory.
type Transcript struct {
	Path     string
	Header   Header
	Entries  []Entry
	Problems []Problem
	file     *os.File
}

// Create starts a new session file at path (its directory is created).
func Create(path string, h Header) (*Transcript, error) {
	h.Type, h.Version = TypeSession, FormatVersion
	t := &Transcript{Path: path, Header: h}
	if path == "" {
		return t, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create session %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create session %s: %w", path, err)
	}
	t.file = f
	if err := t.writeLine(h); err != nil {
		f.Close()
		return nil, err
	}
	return t, nil
}

// Load reads a session file. A line that is not valid JSON is reported in
// Problems and skipped; a torn last line (a crash mid-write) is the usual
// case. Entries of unknown types are kept.
func Load(path string) (*Transcript, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", path, err)
	}
	t := &Transcript{Path: path}
	if err := t.parse(data); err != nil {
		return nil, fmt.Errorf("read session %s: %w", path, err)
	}
	return t, nil
}

// Parse reads a session from memory, as Load does.
func Parse(data []byte) (*Transcript, error) {
	t := &Transcript{}
	return t, t.parse(data)
}

func (t *Transcript) parse(data []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 256<<20)
	line := 0
	for sc.Scan() {
		line++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		if t.Header.Type == "" {
			var h Header
			if err := json.Unmarshal(raw, &h); err != nil || h.Type != TypeSession {
				if err == nil {
					err = errors.New("the first line is not a session header")
				}
				return fmt.Errorf("line %d: %w", line, err)
			}
			t.Header = h
			continue
		}
		var e Entry
		if err := json.Unmarshal(raw, &e); err != nil {
			msg := fmt.Sprintf("not valid JSON, skipped: %v", err)
			if line == countLines(data) && !bytes.HasSuffix(data, []byte("\n")) {
				msg = "torn last line (the writer stopped mid-entry), skipped"
			}
			t.Problems = append(t.Problems, Problem{Line: line, Message: msg})
			continue
		}
		e.Raw = append(json.RawMessage(nil), raw...)
		t.Entries = append(t.Entries, e)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if t.Header.Type == "" {
		return errors.New("empty session file")
	}
	return nil
}

func countLines(data []byte) int {
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// OpenAppend loads the session at path and opens it for appending. A torn
// last line is cut off first so that new entries start on a line of their
// own (it was reported in Problems); a complete last line that merely lacks
// its newline gets one instead.
func OpenAppend(path string) (*Transcript, error) {
	t, err := Load(path)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("open session %s: %w", path, err)
	}
	if err := cutTornTail(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("repair session %s: %w", path, err)
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, err
	}
	t.file = f
	return t, nil
}

// cutTornTail ends the file on a line boundary: a last line that is valid
// JSON gets its missing newline, anything else after the last newline is
// cut off.
func cutTornTail(f *os.File) error {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return err
	}
	size := fi.Size()
	buf := make([]byte, 1)
	if _, err := f.ReadAt(buf, size-1); err != nil {
		return err
	}
	if buf[0] == '\n' {
		return nil
	}
	// Walk back to the previous newline in chunks.
	const chunk = 4096
	end := size
	lineStart := int64(0)
	for end > 0 {
		start := max(end-chunk, 0)
		b := make([]byte, end-start)
		if _, err := f.ReadAt(b, start); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			lineStart = start + int64(i) + 1
			break
		}
		end = start
	}
	last := make([]byte, size-lineStart)
	if _, err := f.ReadAt(last, lineStart); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if json.Valid(bytes.TrimSpace(last)) {
		_, err := f.WriteAt([]byte{'\n'}, size)
		return err
	}
	return f.Truncate(lineStart)
}

// Append adds an entry and writes it as one line with a single write, so a
// crash can tear at most that line.
func (t *Transcript) Append(e Entry) error {
	if t.file != nil {
		if err := t.writeLine(e); err != nil {
			return err
		}
	}
	t.Entries = append(t.Entries, e)
	return nil
}

func (t *Transcript) writeLine(v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode session entry: %w", err)
	}
	if _, err := t.file.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write session %s: %w", t.Path, err)
	}
	return nil
}

// Close closes the file.
func (t *Transcript) Close() error {
	if t.file == nil {
		return nil
	}
	err := t.file.Close()
	t.file = nil
	return err
}

// MarshalJSON writes the entry; an entry read from disk is written as read,
// so unknown types and fields survive.
func (e Entry) MarshalJSON() ([]byte, error) {
	if e.Raw != nil {
		return e.Raw, nil
	}
	type plain Entry
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(plain(e)); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
