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
	"sort"
	"strings"
	"time"
)

// Summary is what the session picker shows of one session file, worked out
// as the established harness does: Messages counts every message entry of
// the file (all branches), FirstMessage is the text of the first user
// message, Name the latest session_info entry's, and Modified the time of
// the latest user or assistant message (else the header's time, else the
// file's).
type Summary struct {
	Path          string
	ID            string
	Cwd           string
	Name          string
	ParentSession string
	Created       time.Time
	Modified      time.Time
	Messages      int
	FirstMessage  string
}

// Lister lists session files and remembers, per file, how far it read and
// what it found there. Session files only grow, so a file listed before is
// read again from where the last reading stopped, and not at all when its
// size and time are unchanged: listing a thousand sessions reads their
// directory entries and file status, not their contents. The memory can
// be kept in a file (OpenLister/Save) so that the next run starts warm.
type Lister struct {
	path    string
	files   map[string]*scanned
	changed bool
	// Read counts the bytes read from session files (tests and benchmarks
	// see what a listing cost).
	Read int64
}

// scanned is what one file held up to Offset (a line boundary).
type scanned struct {
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime"`
	Offset  int64  `json:"offset"`
	Tail    []byte `json:"tail"` // the bytes just before Offset: a rewritten file shows here
	State   scan   `json:"state"`
}

// scan is the running summary of a file's lines.
type scan struct {
	Header   bool   `json:"header,omitempty"`
	NotOurs  bool   `json:"notSession,omitempty"`
	ID       string `json:"id,omitempty"`
	Cwd      string `json:"cwd,omitempty"`
	Parent   string `json:"parent,omitempty"`
	Created  string `json:"created,omitempty"`
	Name     string `json:"name,omitempty"`
	Messages int    `json:"messages,omitempty"`
	First    string `json:"first,omitempty"`
	Last     int64  `json:"last,omitempty"` // ms since the epoch
}

// maxIndex bounds the remembered listing read back from disk.
const maxIndex = 64 << 20

// tailLen is how many bytes before the offset are kept to notice a file
// that was replaced rather than appended to.
const tailLen = 64

// OpenLister returns a Lister that keeps its memory in path ("" for none).
// A missing or unreadable file starts it empty: it is only a cache.
func OpenLister(path string) *Lister {
	l := &Lister{path: path, files: map[string]*scanned{}}
	if path == "" {
		return l
	}
	f, err := os.Open(path)
	if err != nil {
		return l
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxIndex+1))
	if err != nil || len(data) > maxIndex {
		return l
	}
	var saved struct {
		Files map[string]*scanned `json:"files"`
	}
	if json.Unmarshal(data, &saved) == nil && saved.Files != nil {
		for p, s := range saved.Files {
			if s != nil {
				l.files[p] = s
			}
		}
	}
	return l
}

// Save writes the Lister's memory (when it changed) atomically beside its
// final place. Files that no longer exist are forgotten first.
func (l *Lister) Save() error {
	if l.path == "" || !l.changed {
		return nil
	}
	for p := range l.files {
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			delete(l.files, p)
		}
	}
	data, err := json.Marshal(struct {
		Files map[string]*scanned `json:"files"`
	}{l.files})
	if err != nil {
		return fmt.Errorf("session index: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return fmt.Errorf("session index: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(l.path), ".index-*")
	if err != nil {
		return fmt.Errorf("session index: %w", err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), l.path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("session index %s: %w", l.path, werr)
	}
	l.changed = false
	return nil
}

// List returns the sessions in dir, newest first; with cwd set, only those
// whose header names that directory.
func (l *Lister) List(dir, cwd string) []Summary {
	names := jsonlIn(dir)
	// File names start with the UTC time the session began: newest first
	// before the sort by activity, which keeps this order for equal times.
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	var out []Summary
	for _, p := range names {
		s, ok := l.Summary(p)
		if !ok || (cwd != "" && filepath.Clean(s.Cwd) != filepath.Clean(cwd)) {
			continue
		}
		out = append(out, s)
	}
	SortByActivity(out)
	return out
}

// ListAll returns the sessions of every directory: in the default layout
// (dir is one working directory's "--slug--" folder) those of every
// folder beside it, else those in dir (a sessions directory of its own
// holds every directory's sessions).
func (l *Lister) ListAll(dir string) []Summary {
	type cand struct {
		path  string
		mtime int64
	}
	var cands []cand
	for _, d := range everyDir(dir) {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			continue
		}
		for _, p := range jsonlIn(d) {
			var mt int64
			if fi, err := os.Stat(p); err == nil {
				mt = fi.ModTime().UnixNano()
			}
			cands = append(cands, cand{p, mt})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].mtime != cands[j].mtime {
			return cands[i].mtime > cands[j].mtime
		}
		return filepath.Base(cands[i].path) > filepath.Base(cands[j].path)
	})
	var out []Summary
	for _, c := range cands {
		if s, ok := l.Summary(c.path); ok {
			out = append(out, s)
		}
	}
	SortByActivity(out)
	return out
}

// SortByActivity orders sessions by their latest activity, newest first,
// keeping the given order among equal times.
func SortByActivity(list []Summary) {
	sort.SliceStable(list, func(i, j int) bool { return list[i].Modified.After(list[j].Modified) })
}

func jsonlIn(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".jsonl") && !e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// Summary summarises one session file, reading only what was appended
// since the Lister last read it. ok is false for a file that is not a
// session (no header line first).
func (l *Lister) Summary(path string) (Summary, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return Summary{}, false
	}
	prev := l.files[path]
	if prev != nil && prev.Size == fi.Size() && prev.ModTime == fi.ModTime().UnixNano() && prev.Offset == prev.Size {
		return prev.State.summary(path, fi.ModTime())
	}
	f, err := os.Open(path)
	if err != nil {
		return Summary{}, false
	}
	defer f.Close()
	var sc scanned
	if prev != nil && prev.Offset <= fi.Size() && l.sameUpTo(f, prev) {
		sc = *prev
	}
	if _, err := f.Seek(sc.Offset, io.SeekStart); err != nil {
		return Summary{}, false
	}
	partial := l.read(f, &sc)
	sc.Size, sc.ModTime = fi.Size(), fi.ModTime().UnixNano()
	l.files[path], l.changed = &sc, true
	st := sc.State
	if partial != nil {
		// A last line without its newline counts (a complete entry whose
		// newline is missing) but is read again next time.
		st.line(partial)
	}
	return st.summary(path, fi.ModTime())
}

// sameUpTo checks that the bytes before prev.Offset are those read last
// time (the file grew rather than being replaced).
func (l *Lister) sameUpTo(f *os.File, prev *scanned) bool {
	n := int64(len(prev.Tail))
	if n == 0 {
		return prev.Offset == 0
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, prev.Offset-n); err != nil {
		return false
	}
	l.Read += n
	return bytes.Equal(buf, prev.Tail)
}

// read scans complete lines from f's position, advancing sc; it returns
// a trailing line without a newline, if any.
func (l *Lister) read(f *os.File, sc *scanned) []byte {
	r := bufio.NewReaderSize(f, 64<<10)
	var last []byte
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A long line (a big tool result): gather it whole.
			long := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = r.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		l.Read += int64(len(line))
		if len(line) > 0 && line[len(line)-1] == '\n' {
			sc.State.line(line)
			sc.Offset += int64(len(line))
			last = line
			continue
		}
		if len(last) > 0 || sc.Offset > 0 {
			sc.Tail = tailOf(f, sc.Offset, last, sc.Tail)
		}
		if len(line) > 0 {
			return append([]byte(nil), line...)
		}
		return nil
	}
}

// tailOf is the tailLen bytes before off: from the last line read when it
// is long enough, else read back from the file.
func tailOf(f *os.File, off int64, last, old []byte) []byte {
	n := min(int64(tailLen), off)
	if int64(len(last)) >= n {
		return append([]byte(nil), last[int64(len(last))-n:]...)
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, off-n); err != nil {
		return old
	}
	return buf
}

// probe is the part of an entry line the summary needs; message content
// stays raw unless its text is wanted.
type probe struct {
	Type          string          `json:"type"`
	ID            string          `json:"id"`
	Timestamp     string          `json:"timestamp"`
	Cwd           json.RawMessage `json:"cwd"`
	ParentSession string          `json:"parentSession"`
	Name          *string         `json:"name"`
	Message       *struct {
		Role      string          `json:"role"`
		Content   present         `json:"content"`
		Timestamp json.RawMessage `json:"timestamp"`
	} `json:"message"`
}

// present notes that a field is there without keeping it: a message's
// content (a tool result can be megabytes) is only wanted for the first
// user message, read again then.
type present bool

func (p *present) UnmarshalJSON([]byte) error {
	*p = true
	return nil
}

// withContent is the part of a message line holding its content.
type withContent struct {
	Message struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// line folds one line into the summary. Lines that are not JSON are passed
// over, as the established harness does.
func (s *scan) line(line []byte) {
	if s.NotOurs {
		return
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	var p probe
	if json.Unmarshal(line, &p) != nil {
		return
	}
	if !s.Header {
		if p.Type != TypeSession {
			s.NotOurs = true
			return
		}
		s.Header, s.ID, s.Parent, s.Created = true, p.ID, p.ParentSession, p.Timestamp
		var cwd string
		if json.Unmarshal(p.Cwd, &cwd) == nil {
			s.Cwd = cwd
		}
		return
	}
	if p.Type == TypeSessionInfo {
		s.Name = ""
		if p.Name != nil {
			s.Name = strings.TrimSpace(*p.Name)
		}
	}
	if p.Type != TypeMessage || p.Message == nil {
		return
	}
	s.Messages++
	m := p.Message
	if (m.Role != "user" && m.Role != "assistant") || !m.Content {
		return
	}
	var ms float64
	if json.Unmarshal(m.Timestamp, &ms) == nil {
		s.Last = max(s.Last, int64(ms))
	} else if t, err := time.Parse(time.RFC3339Nano, p.Timestamp); err == nil {
		s.Last = max(s.Last, t.UnixMilli())
	}
	if s.First == "" && m.Role == "user" {
		var c withContent
		if json.Unmarshal(line, &c) == nil {
			s.First = contentText(c.Message.Content)
		}
	}
}

// contentText is a message's text as the established harness joins it for
// the picker: a string as it is, text blocks joined by spaces.
func contentText(raw json.RawMessage) string {
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, " ")
}

func (s scan) summary(path string, mtime time.Time) (Summary, bool) {
	if !s.Header || s.NotOurs {
		return Summary{}, false
	}
	out := Summary{Path: path, ID: s.ID, Cwd: s.Cwd, Name: s.Name, ParentSession: s.Parent, Messages: s.Messages, FirstMessage: s.First}
	created, err := time.Parse(time.RFC3339Nano, s.Created)
	if err == nil {
		out.Created = created
	}
	switch {
	case s.Last > 0:
		out.Modified = time.UnixMilli(s.Last)
	case err == nil:
		out.Modified = created
	default:
		out.Modified = mtime
	}
	return out, true
}

// MessageText is the text of every user and assistant message of a
// session file joined by spaces: what the picker's search looks through
// beyond names and first messages. It reads the whole file.
func MessageText(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var b strings.Builder
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && bytes.Contains(line, []byte(`"message"`)) {
			var p probe
			var c withContent
			if json.Unmarshal(line, &p) == nil && p.Type == TypeMessage && p.Message != nil &&
				(p.Message.Role == "user" || p.Message.Role == "assistant") && p.Message.Content && json.Unmarshal(line, &c) == nil {
				if t := contentText(c.Message.Content); t != "" {
					if b.Len() > 0 {
						b.WriteByte(' ')
					}
					b.WriteString(t)
				}
			}
		}
		if err != nil {
			if err == io.EOF {
				return b.String(), nil
			}
			return b.String(), fmt.Errorf("read %s: %w", path, err)
		}
	}
}
