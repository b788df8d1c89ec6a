package session

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/piwasm/pi/abi/jsonstr"
	"github.com/piwasm/pi/core/prompt"
)

// FormatVersion is the version written in a session file's header: the
// established harness's version 3 (a tree of entries linked by id and
// parentId). Files of version 1, pi's earlier linear format, are read too.
const FormatVersion = 3

// Entry kinds. TypeMessage is the established harness's message entry;
// the other kinds are pi's own records, stored as the established
// harness's "custom" entries (a runtime-context snapshot as a
// "custom_message", which that harness also sends as a user message), so
// either harness can continue the other's session and skips what it does
// not know.
const (
	TypeSession    = "session"    // the header, first line only
	TypeMessage    = "message"    // a user, assistant, tool-result or system message
	TypeContext    = "context"    // a runtime-context snapshot (sent as a user message)
	TypeProjection = "projection" // how a rendered prompt entered the request history
	TypeRequest    = "request"    // a request was sent at this point
	TypeError      = "error"      // a request failed
	TypeDecision   = "decision"   // why a tool call ran or did not (permissions, extensions)
	// The established harness's records of the model and thinking level in
	// use, written when they change, so either harness continues a session
	// with them.
	TypeModelChange    = "model_change"
	TypeThinkingChange = "thinking_level_change"
	// The established harness's entries that shape the context: a
	// compaction (a summary standing for the entries before
	// FirstKeptEntryID), a branch summary (what an abandoned branch did),
	// an extension's message (sent as a user message), and an edit that
	// omits or replaces an earlier entry's content.
	TypeCompaction    = "compaction"
	TypeBranchSummary = "branch_summary"
	TypeCustomMessage = "custom_message"
	TypeContextEdit   = "context_edit"
	// Its entries that do not: a bookmark on an entry and the session's
	// display name.
	TypeLabel       = "label"
	TypeSessionInfo = "session_info"
	// TypeUsage is billed usage outside the conversation (a prompt-cache
	// refresh, kind "cache_warm"): counted in the session's totals, never
	// sent to the model.
	TypeUsage = "usage"
)

// UsageCacheWarm is the kind of a usage entry a cache refresh writes.
const UsageCacheWarm = "cache_warm"

// customTypes maps pi's record kinds to the customType they are stored
// under.
var customTypes = map[string]string{
	TypeContext:    "pi.context",
	TypeProjection: "pi.projection",
	TypeRequest:    "pi.request",
	TypeError:      "pi.error",
	TypeDecision:   "pi.decision",
}

// Header is the first line of a session file.
type Header struct {
	Type          string `json:"type"`
	Version       int    `json:"version"`
	ID            string `json:"id"`
	Timestamp     string `json:"timestamp"`
	Cwd           string `json:"cwd"`
	ParentSession string `json:"parentSession,omitempty"`
}

// Entry is one line of a session file after the header. Only the fields of
// its kind are set. ID and ParentID link entries into a tree (the active
// branch runs from the last entry up to the root); Time is the entry's ISO
// timestamp. Raw keeps the line as read so that entries of unknown types
// pass through unchanged.
type Entry struct {
	Type     string
	ID       string
	ParentID string
	Time     string
	// TypeMessage
	Message   *prompt.Message
	Extension string
	// TypeContext and TypeError
	Text string
	// TypeProjection
	Commits      []ProjectionCommit
	InHistory    bool
	StartsSeries bool
	// TypeRequest
	Route string
	API   string
	// TypeDecision
	Decision *Decision
	// Forced names the extension whose forced prompt replaced the system
	// text of this request. The text itself is never stored, so a replay
	// of a forced request shows the structured prompt instead.
	Forced string
	// TypeModelChange and TypeThinkingChange
	Provider, ModelID, ThinkingLevel string
	// TypeCompaction and TypeBranchSummary. FromID is the leaf a branch
	// summary left ("root" for none); FromHook marks a summary an
	// extension supplied (its file lists are not carried on).
	Summary          string
	FirstKeptEntryID string
	TokensBefore     int
	SystemMessage    *prompt.Message
	Usage            *prompt.Usage
	Files            *FileLists
	FromHook         bool
	FromID           string
	// TypeCustomMessage (another extension's message) keeps its content
	// here, with its customType and whether the UI shows it.
	CustomType string
	Content    *prompt.Content
	Display    bool
	// TypeContextEdit: the entry edited, and its new content (nil: the
	// entry is left out of the context). TypeLabel: the entry labelled.
	TargetID    string
	Replacement *prompt.Content
	// TypeLabel and TypeSessionInfo
	Label, Name string
	// TypeUsage: what the usage was for ("cache_warm"), and a note (an
	// extension's override); Provider, ModelID and Usage say whose usage.
	UsageKind, Note string

	Raw json.RawMessage
	// seqGap is how many history nodes the entries left out of a branch
	// just before this one would have added (see Transcript.needed).
	seqGap int
}

// FileLists are the files a summarised stretch of the session read and
// changed (a compaction's or branch summary's details).
type FileLists struct {
	ReadFiles     []string `json:"readFiles"`
	ModifiedFiles []string `json:"modifiedFiles"`
}

// wireEntry is an entry as written: the established harness's base fields,
// then those of the entry's type.
type wireEntry struct {
	Type       string          `json:"type"`
	ID         string          `json:"id,omitempty"`
	ParentID   *string         `json:"parentId,omitempty"`
	Timestamp  string          `json:"timestamp,omitempty"`
	Message    *prompt.Message `json:"message,omitempty"`
	Extension  string          `json:"extension,omitempty"`
	CustomType string          `json:"customType,omitempty"`
	Content    *prompt.Content `json:"content,omitempty"`
	Display    *bool           `json:"display,omitempty"`
	Data       *wireData       `json:"data,omitempty"`
	// usage
	Kind string `json:"kind,omitempty"`
	// model_change and thinking_level_change (and usage)
	Provider      string `json:"provider,omitempty"`
	ModelID       string `json:"modelId,omitempty"`
	Model         string `json:"model,omitempty"`
	ThinkingLevel string `json:"thinkingLevel,omitempty"`
	// compaction and branch_summary
	Summary          *string         `json:"summary,omitempty"`
	FirstKeptEntryID string          `json:"firstKeptEntryId,omitempty"`
	TokensBefore     *int            `json:"tokensBefore,omitempty"`
	FromID           string          `json:"fromId,omitempty"`
	SystemMessage    *prompt.Message `json:"systemMessage,omitempty"`
	Usage            *prompt.Usage   `json:"usage,omitempty"`
	Note             string          `json:"note,omitempty"`
	Details          json.RawMessage `json:"details,omitempty"`
	FromHook         *bool           `json:"fromHook,omitempty"`
	// context_edit and label
	TargetID    string          `json:"targetId,omitempty"`
	Replacement json.RawMessage `json:"replacement,omitempty"`
	Label       *string         `json:"label,omitempty"`
	// session_info
	Name *string `json:"name,omitempty"`

	// Version 1 fields, read only.
	Text         string             `json:"text,omitempty"`
	Commits      []ProjectionCommit `json:"commits,omitempty"`
	InHistory    bool               `json:"inHistory,omitempty"`
	StartsSeries bool               `json:"startsSeries,omitempty"`
	Route        string             `json:"route,omitempty"`
	API          string             `json:"api,omitempty"`
	Forced       string             `json:"forced,omitempty"`
}

type wireData struct {
	*Decision
	Text         string             `json:"text,omitempty"`
	Commits      []ProjectionCommit `json:"commits,omitempty"`
	InHistory    bool               `json:"inHistory,omitempty"`
	StartsSeries bool               `json:"startsSeries,omitempty"`
	Route        string             `json:"route,omitempty"`
	API          string             `json:"api,omitempty"`
	Forced       string             `json:"forced,omitempty"`
}

// UnmarshalJSON reads an entry of either format version.
func (e *Entry) UnmarshalJSON(data []byte) error {
	var w wireEntry
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*e = Entry{Type: w.Type, ID: w.ID, Time: w.Timestamp, Message: w.Message, Extension: w.Extension,
		Text: w.Text, Commits: w.Commits, InHistory: w.InHistory, StartsSeries: w.StartsSeries,
		Route: w.Route, API: w.API, Forced: w.Forced, Provider: w.Provider, ModelID: w.ModelID, ThinkingLevel: w.ThinkingLevel}
	if w.ParentID != nil {
		e.ParentID = *w.ParentID
	}
	if err := e.readTreeFields(&w); err != nil {
		return err
	}
	for kind, ct := range customTypes {
		if w.CustomType != ct || (w.Type != "custom" && w.Type != "custom_message") {
			continue
		}
		e.Type = kind
		if w.Type == "custom_message" && w.Content != nil {
			e.Text, e.Content, e.CustomType = w.Content.Text(), nil, ""
		}
		if d := w.Data; d != nil {
			e.Commits, e.InHistory, e.StartsSeries = d.Commits, d.InHistory, d.StartsSeries
			e.Route, e.API, e.Forced = d.Route, d.API, d.Forced
			e.Decision = d.Decision
			if d.Text != "" {
				e.Text = d.Text
			}
		}
	}
	if e.Type == TypeMessage && e.Message == nil {
		return errors.New("message entry without a message")
	}
	return nil
}

func (e Entry) wire() wireEntry {
	w := wireEntry{Type: e.Type, ID: e.ID, Timestamp: e.Time}
	if e.ParentID != "" {
		parent := e.ParentID
		w.ParentID = &parent
	}
	switch e.Type {
	case TypeMessage:
		w.Message, w.Extension = e.Message, e.Extension
	case TypeContext:
		w.Type, w.CustomType = "custom_message", customTypes[e.Type]
		content, display := prompt.TextContent(e.Text), false
		w.Content, w.Display = &content, &display
	case TypeProjection:
		w.Type, w.CustomType = "custom", customTypes[e.Type]
		w.Data = &wireData{Commits: e.Commits, InHistory: e.InHistory, StartsSeries: e.StartsSeries}
	case TypeRequest:
		w.Type, w.CustomType = "custom", customTypes[e.Type]
		w.Data = &wireData{Route: e.Route, API: e.API, Forced: e.Forced}
	case TypeError:
		w.Type, w.CustomType = "custom", customTypes[e.Type]
		w.Data = &wireData{Text: e.Text}
	case TypeDecision:
		w.Type, w.CustomType = "custom", customTypes[e.Type]
		w.Data = &wireData{Decision: e.Decision}
	case TypeModelChange:
		w.Provider, w.ModelID = e.Provider, e.ModelID
	case TypeThinkingChange:
		w.ThinkingLevel = e.ThinkingLevel
	default:
		e.writeTreeFields(&w)
	}
	return w
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
//
// A session file only grows, but requests need only the active branch
// from its latest compaction on, so the transcript keeps every entry's
// place in the tree and in the file (refs) and the entries themselves only
// while the active branch needs them; the others are read back from the
// file when asked for (see memory.go).
type Transcript struct {
	Path     string
	Header   Header
	Problems []Problem
	// Now stamps new entries; nil means time.Now.
	Now func() time.Time
	// mu serialises appends: tools running in parallel may record
	// decisions while each other runs.
	mu   sync.Mutex
	file *os.File
	// refs has one ref per entry of the file, in file order; ids finds
	// an entry's ref by id. size is where the next line starts in the
	// file, or -1 when that is not known (a write failed): entries
	// appended then stay in memory.
	refs []ref
	ids  idIndex
	size int64
	// stats are the counts and sums of every entry added (see Stats).
	stats Stats
	// leaf is the id of the entry new entries hang from. atRoot marks a
	// leaf moved before the first entry (/tree to the first user message):
	// the active branch is empty and the next entry is a new root.
	leaf   string
	atRoot bool
	// view and ids keep what requests and new entries need, up to date as
	// entries are appended (see view.go).
	view view
	conv map[*prompt.Message]converted // see view.convert
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
	// Read as well as append: entries left out of memory are read back
	// through the same handle.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create session %s: %w", path, err)
	}
	t.file = f
	n, err := t.writeLine(h)
	if err != nil {
		f.Close()
		return nil, err
	}
	t.size = int64(n)
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
	line := 0
	for pos := 0; pos < len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		next := pos + end + 1
		if end < 0 {
			end, next = len(data)-pos, len(data)
		}
		lineStart := pos
		raw := data[pos : pos+end]
		pos = next
		line++
		if len(raw) > 256<<20 {
			return fmt.Errorf("line %d: longer than 256 MiB", line)
		}
		// Where the trimmed line starts, so the entry can be read back.
		lead := len(raw) - len(bytes.TrimLeft(raw, " \t\r\n\v\f"))
		raw = bytes.TrimSpace(raw)
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
		off := int64(lineStart + lead)
		if t.Path == "" {
			off = -1 // nothing to read it back from
		}
		t.add(e, off, len(raw))
		if e.ID != "" {
			t.leaf = e.ID
		}
	}
	if t.Header.Type == "" {
		return errors.New("empty session file")
	}
	// What the active branch does not need is not kept.
	t.current()
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
	if t.size, err = f.Seek(0, io.SeekCurrent); err != nil {
		t.size = -1
	}
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
//
// A new entry gets an id, hangs from the current leaf (the last entry) and
// is stamped with the time.
func (t *Transcript) Append(e Entry) error {
	_, err := t.appendEntry(e)
	return err
}

// appendEntry is Append, returning the entry as appended.
func (t *Transcript) appendEntry(e Entry) (Entry, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	prevLeaf, prevRoot := t.leaf, t.atRoot
	if e.Raw == nil && e.ID == "" {
		e.ID = t.newEntryID()
		e.ParentID = t.leaf
		if t.atRoot {
			e.ParentID = ""
		}
		now := time.Now
		if t.Now != nil {
			now = t.Now
		}
		e.Time = now().UTC().Format("2006-01-02T15:04:05.000Z")
	}
	off, n := int64(-1), 0
	if t.file != nil {
		start := t.size
		written, err := t.writeLine(e)
		if err != nil {
			t.size = -1 // a partial line may be there: offsets are unknown
			return Entry{}, err
		}
		if start >= 0 {
			off, n = start, written-1
			t.size += int64(written)
		}
	}
	e.seqGap = 0
	t.add(e, off, n)
	if e.ID != "" {
		t.leaf, t.atRoot = e.ID, false
	}
	t.appended(e, prevLeaf, prevRoot)
	return e, nil
}

// writeLine writes v (an Entry or the Header) as one line and returns its
// length with the newline.
func (t *Transcript) writeLine(v any) (int, error) {
	var line []byte
	switch v := v.(type) {
	case Header:
		line = append(appendHeader(make([]byte, 0, 256), v), '\n')
	case Entry:
		if v.Raw != nil {
			// An entry as read from a file goes through the Encoder, which
			// compacts it as before.
			return t.writeEncoded(v)
		}
		// An entry encodes itself; handing it to an Encoder would check and
		// compact its whole encoding once more, a second pass over every
		// tool result the session records.
		if b, ok := appendEntryJSON(make([]byte, 0, 1024), v); ok {
			line = append(b, '\n')
		} else {
			b, err := v.marshalReflect()
			if err != nil {
				return 0, fmt.Errorf("encode session entry: %w", err)
			}
			line = append(make([]byte, 0, len(b)+1), b...)
			line = append(line, '\n')
		}
	default:
		return t.writeEncoded(v)
	}
	if _, err := t.file.Write(line); err != nil {
		return 0, fmt.Errorf("write session %s: %w", t.Path, err)
	}
	return len(line), nil
}

// writeEncoded writes v as one line through encoding/json.
func (t *Transcript) writeEncoded(v any) (int, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return 0, fmt.Errorf("encode session entry: %w", err)
	}
	if _, err := t.file.Write(b.Bytes()); err != nil {
		return 0, fmt.Errorf("write session %s: %w", t.Path, err)
	}
	return b.Len(), nil
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
	if b, ok := appendEntryJSON(nil, e); ok {
		return b, nil
	}
	return e.marshalReflect()
}

// marshalReflect is MarshalJSON through encoding/json, for every kind of
// entry (appendEntryJSON writes the kinds a running session writes the
// same way without reflection).
func (e Entry) marshalReflect() ([]byte, error) {
	w := e.wire()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return nil, err
	}
	out := bytes.TrimRight(b.Bytes(), "\n")
	if e.ID != "" && e.ParentID == "" {
		// A root entry says parentId: null, as the established harness
		// writes it; omitempty cannot express that.
		// The id as the encoder above wrote it (no HTML escapes).
		id := jsonstr.Append(nil, e.ID)
		out = bytes.Replace(out, append([]byte(`,"id":`), id...), append(append([]byte(`,"id":`), id...), `,"parentId":null`...), 1)
	}
	return out, nil
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// newEntryID returns 8 hex digits not used by another entry of the file,
// the established harness's id shape. t.mu must be held.
func (t *Transcript) newEntryID() string {
	for {
		var b [4]byte
		if _, err := rand.Read(b[:]); err != nil {
			// crypto/rand does not fail on supported platforms; fall back
			// to a count so ids stay unique anyway.
			return fmt.Sprintf("%08x", len(t.refs)+1)
		}
		id := hex.EncodeToString(b[:])
		if _, taken := t.ids.find(id); !taken {
			return id
		}
	}
}

// scratch is an in-memory copy of the active branch that new entries hang
// from as they would from the file (a dry run writes nothing).
func (t *Transcript) scratch() *Transcript {
	s := &Transcript{Header: t.Header, Now: t.Now}
	for _, e := range t.Branch() {
		s.add(e, -1, 0)
	}
	t.mu.Lock()
	s.leaf, s.atRoot = t.leaf, t.atRoot
	t.mu.Unlock()
	return s
}
