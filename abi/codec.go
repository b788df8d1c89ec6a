package abi

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/piwasm/pi/abi/jsonstr"
)

// This file is a small JSON codec for the ABI payloads, written without
// reflection. Guests run it instead of encoding/json: inside a WebAssembly
// guest with deadline checks compiled in, encoding/json needs tens of
// microseconds even for a tiny event, which would dominate every call. The
// wire format is the one encoding/json produces and accepts for the same
// types (the fuzz tests hold the two to that), so the host keeps using
// encoding/json.

// ---- encoding ----

var errNonFinite error = constError("number is not finite")

func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, errNonFinite
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

func appendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonstr.Append(b, s)
	}
	return append(b, ']')
}

// objWriter writes the fields of one object, handling commas.
type objWriter struct {
	b   []byte
	n   int
	err error
}

func (w *objWriter) key(k string) {
	if w.n == 0 {
		w.b = append(w.b, '{')
	} else {
		w.b = append(w.b, ',')
	}
	w.n++
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
}

func (w *objWriter) str(k, v string, omitEmpty bool) {
	if omitEmpty && v == "" {
		return
	}
	w.key(k)
	w.b = jsonstr.Append(w.b, v)
}

func (w *objWriter) boolean(k string, v bool) {
	if v {
		w.key(k)
		w.b = append(w.b, "true"...)
	}
}

func (w *objWriter) num(k string, v float64) {
	w.key(k)
	var err error
	w.b, err = appendFloat(w.b, v)
	if err != nil && w.err == nil {
		w.err = &fieldErr{field: k, err: err}
	}
}

// fieldErr names the field an encoding error is in. It stands for
// fmt.Errorf("%s: %w"), which would link fmt (and through it reflect and
// os) into every guest.
type fieldErr struct {
	field string
	err   error
	dot   bool // "ops[1].order: …" rather than "ops[1]: order: …"
}

func (e *fieldErr) Error() string {
	if e.dot {
		return e.field + "." + e.err.Error()
	}
	return e.field + ": " + e.err.Error()
}

func (e *fieldErr) Unwrap() error { return e.err }

func (w *objWriter) done() ([]byte, error) {
	if w.n == 0 {
		w.b = append(w.b, '{')
	}
	return append(w.b, '}'), w.err
}

// AppendJSON appends op as JSON (the encoding/json form of Op).
func (op Op) AppendJSON(b []byte) ([]byte, error) {
	w := objWriter{b: b}
	w.str("op", op.Op, false)
	w.str("name", op.Name, true)
	w.str("text", op.Text, true)
	if op.Order != nil {
		w.num("order", *op.Order)
	}
	w.boolean("interpolate", op.Interpolate)
	w.boolean("complete", op.Complete)
	if op.Value != nil {
		w.key("value")
		w.b = jsonstr.Append(w.b, *op.Value)
	}
	if len(op.Tools) > 0 {
		w.key("tools")
		w.b = appendStrings(w.b, op.Tools)
	}
	return w.done()
}

func appendOps(w *objWriter, ops []Op) {
	if len(ops) == 0 {
		return
	}
	w.key("ops")
	w.b = append(w.b, '[')
	for i, op := range ops {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		var err error
		w.b, err = op.AppendJSON(w.b)
		if err != nil && w.err == nil {
			w.err = &fieldErr{field: "ops[" + strconv.Itoa(i) + "]", err: err, dot: true}
		}
	}
	w.b = append(w.b, ']')
}

// AppendJSON appends r as JSON.
func (r BeforeAgentStartResult) AppendJSON(b []byte) ([]byte, error) {
	w := objWriter{b: b}
	appendOps(&w, r.Ops)
	w.str("message", r.Message, true)
	if r.ForcePrompt != nil {
		w.key("forcePrompt")
		w.b = jsonstr.Append(w.b, *r.ForcePrompt)
	}
	return w.done()
}

// AppendJSON appends r as JSON.
func (r AssembleResult) AppendJSON(b []byte) ([]byte, error) {
	w := objWriter{b: b}
	appendOps(&w, r.Ops)
	return w.done()
}

// AppendJSON appends r as JSON.
func (r InputResult) AppendJSON(b []byte) ([]byte, error) {
	w := objWriter{b: b}
	w.str("action", r.Action, true)
	w.str("text", r.Text, true)
	return w.done()
}

// AppendJSON appends r as JSON.
func (r CommandResult) AppendJSON(b []byte) ([]byte, error) {
	w := objWriter{b: b}
	w.str("send", r.Send, true)
	w.str("show", r.Show, true)
	return w.done()
}

// AppendJSON appends c as JSON.
func (c CommandInfo) AppendJSON(b []byte) ([]byte, error) {
	w := objWriter{b: b}
	w.str("name", c.Name, false)
	w.str("description", c.Description, true)
	w.str("argumentHint", c.ArgumentHint, true)
	if c.Completions {
		w.boolean("completions", true)
	}
	return w.done()
}

// JSONAppender is a payload that encodes itself without reflection.
type JSONAppender interface {
	AppendJSON(b []byte) ([]byte, error)
}

// AppendResult appends the envelope {"result": r} to b.
func AppendResult(b []byte, r JSONAppender) ([]byte, error) {
	b = append(b, `{"result":`...)
	b, err := r.AppendJSON(b)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// AppendError appends the envelope {"error": msg} to b ("error" when msg
// is empty).
func AppendError(b []byte, msg string) []byte {
	if msg == "" {
		msg = "error"
	}
	b = append(b, `{"error":`...)
	b = jsonstr.Append(b, msg)
	return append(b, '}')
}

// CommandList is a list of commands (the result of pi_commands).
type CommandList []CommandInfo

// AppendJSON appends l as a JSON array.
func (l CommandList) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, '[')
	for i, c := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b, _ = c.AppendJSON(b)
	}
	return append(b, ']'), nil
}

// ---- decoding ----

// decoder reads one JSON value at a time from b.
type decoder struct {
	b   []byte
	i   int
	err error
}

func (d *decoder) fail(msg string) {
	if d.err == nil {
		d.err = errors.New("json at offset " + strconv.Itoa(d.i) + ": " + msg)
	}
	d.i = len(d.b)
}

func (d *decoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) peek() byte {
	d.ws()
	if d.i >= len(d.b) {
		return 0
	}
	return d.b[d.i]
}

func (d *decoder) lit(s string) bool {
	if len(d.b)-d.i >= len(s) && string(d.b[d.i:d.i+len(s)]) == s {
		d.i += len(s)
		return true
	}
	return false
}

// null consumes a null literal if one is next.
func (d *decoder) null() bool {
	if d.peek() == 'n' {
		if d.lit("null") {
			return true
		}
		d.fail("invalid literal")
	}
	return false
}

func (d *decoder) str() string {
	if d.peek() != '"' {
		d.fail("expected string")
		return ""
	}
	d.i++
	start := d.i
	b, i := d.b, d.i
	for i < len(b) {
		if i+8 <= len(b) && !jsonstr.Special(jsonstr.Load64(b, i), false) {
			i += 8
			continue
		}
		c := b[i]
		if c == '"' {
			d.i = i + 1
			return string(b[start:i])
		}
		if c == '\\' || c < 0x20 {
			break
		}
		i++
	}
	d.i = i
	// slow path: escapes. The plain runs between them are still found
	// eight bytes at a time and copied whole: command output is full of
	// tabs and newlines, and a byte-at-a-time copy after the first one cost
	// about 0.3 µs a byte inside a guest.
	buf := append([]byte(nil), d.b[start:d.i]...)
	for d.i < len(d.b) {
		j := d.i
		for j < len(b) {
			if j+8 <= len(b) && !jsonstr.Special(jsonstr.Load64(b, j), false) {
				j += 8
				continue
			}
			if c := b[j]; c == '"' || c == '\\' || c < 0x20 {
				break
			}
			j++
		}
		buf = append(buf, b[d.i:j]...)
		d.i = j
		if d.i >= len(b) {
			break
		}
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(buf)
		case c < 0x20:
			d.fail("control character in string")
			return ""
		}
		d.i++
		if d.i >= len(d.b) {
			break
		}
		e := d.b[d.i]
		d.i++
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r := d.hex4()
			if utf16IsSurrogate(r) {
				r2 := rune(-1)
				if d.i+1 < len(d.b) && d.b[d.i] == '\\' && d.b[d.i+1] == 'u' {
					save := d.i
					d.i += 2
					r2 = d.hex4()
					if dec := utf16Decode(r, r2); dec != utf8.RuneError {
						buf = utf8.AppendRune(buf, dec)
						continue
					}
					d.i = save
				}
				r = utf8.RuneError
			}
			buf = utf8.AppendRune(buf, r)
		default:
			d.fail("invalid escape")
			return ""
		}
	}
	d.fail("unterminated string")
	return ""
}

func (d *decoder) hex4() rune {
	if len(d.b)-d.i < 4 {
		d.fail("short unicode escape")
		return 0
	}
	v, err := strconv.ParseUint(string(d.b[d.i:d.i+4]), 16, 32)
	if err != nil {
		d.fail("bad unicode escape")
		return 0
	}
	d.i += 4
	return rune(v)
}

func utf16IsSurrogate(r rune) bool { return 0xd800 <= r && r < 0xe000 }

func utf16Decode(r1, r2 rune) rune {
	if 0xd800 <= r1 && r1 < 0xdc00 && 0xdc00 <= r2 && r2 < 0xe000 {
		return (r1-0xd800)<<10 | (r2 - 0xdc00) + 0x10000
	}
	return utf8.RuneError
}

func (d *decoder) num() float64 {
	d.ws()
	// Fast path: a small non-negative integer (orders, sizes), parsed
	// without allocating.
	if v, n, ok := smallInt(d.b[d.i:]); ok {
		d.i += n
		return float64(v)
	}
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			d.i++
			continue
		}
		break
	}
	s := string(d.b[start:d.i])
	if !validNumber(s) {
		d.i = start
		d.fail("invalid number")
		return 0
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		d.i = start
		d.fail("number out of range")
		return 0
	}
	return f
}

// smallInt parses a leading run of at most 15 digits that forms a whole
// JSON number (no fraction or exponent follows; no leading zero).
func smallInt(b []byte) (v int64, n int, ok bool) {
	for n < len(b) && n < 15 && b[n] >= '0' && b[n] <= '9' {
		v = v*10 + int64(b[n]-'0')
		n++
	}
	if n == 0 || (n > 1 && b[0] == '0') {
		return 0, 0, false
	}
	if n < len(b) {
		switch b[n] {
		case '.', 'e', 'E', '-', '+':
			return 0, 0, false
		}
		if b[n] >= '0' && b[n] <= '9' {
			return 0, 0, false
		}
	}
	return v, n, true
}

// validNumber checks the JSON number grammar (which ParseFloat is more
// lenient than).
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i >= len(s) {
		return false
	}
	if s[i] == '0' {
		i++
	} else if s[i] >= '1' && s[i] <= '9' {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	} else {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			return false
		}
	}
	return i == len(s)
}

func (d *decoder) boolean() bool {
	d.ws()
	switch {
	case d.lit("true"):
		return true
	case d.lit("false"):
		return false
	}
	d.fail("expected boolean")
	return false
}

// integer reads an integer the way encoding/json decodes one into an int:
// a number with a fraction or an exponent (1.0, 1e3) is refused.
func (d *decoder) integer() int {
	d.ws()
	if v, n, ok := smallInt(d.b[d.i:]); ok {
		d.i += n
		return int(v)
	}
	start := d.i
	if d.num(); d.err != nil {
		return 0
	}
	v, err := strconv.ParseInt(string(d.b[start:d.i]), 10, 64)
	if err != nil {
		d.i = start
		d.fail("expected integer")
		return 0
	}
	return int(v)
}

// Objects and arrays are read with iterators rather than callbacks: inside
// a guest every closure and every allocation is expensive, and a decoder
// built on callbacks spent most of its time allocating them.
//
//	for more := d.objectStart(); more; more = d.objectNext() {
//		switch string(d.key()) { … }
//	}

// objectStart consumes "{" (or "null", reporting no fields) and reports
// whether a first key follows.
func (d *decoder) objectStart() bool {
	if d.null() {
		return false
	}
	if d.peek() != '{' {
		d.fail("expected object")
		return false
	}
	d.i++
	if d.peek() == '}' {
		d.i++
		return false
	}
	return d.err == nil
}

// key reads an object key and its colon. The result aliases the input
// unless the key contains escapes.
func (d *decoder) key() []byte {
	if d.peek() != '"' {
		d.fail("expected key")
		return nil
	}
	d.i++
	start := d.i
	for d.i < len(d.b) && d.b[d.i] != '"' {
		if d.b[d.i] < 0x20 {
			d.fail("control character in key")
			return nil
		}
		if d.b[d.i] == '\\' {
			// Rare: an escaped key. Decode it properly (allocating).
			d.i = start - 1
			k := []byte(d.str())
			if d.peek() != ':' {
				d.fail("expected ':'")
				return nil
			}
			d.i++
			return k
		}
		d.i++
	}
	if d.i >= len(d.b) {
		d.fail("unterminated key")
		return nil
	}
	k := d.b[start:d.i]
	d.i++
	if d.peek() != ':' {
		d.fail("expected ':'")
		return nil
	}
	d.i++
	return k
}

// objectNext consumes "," (reporting another key) or "}".
func (d *decoder) objectNext() bool {
	switch d.peek() {
	case ',':
		d.i++
		return d.err == nil
	case '}':
		d.i++
		return false
	}
	d.fail("expected ',' or '}'")
	return false
}

// arrayStart consumes "[" and reports whether an element follows; null
// reports none, with isNull set.
func (d *decoder) arrayStart() (more, isNull bool) {
	if d.null() {
		return false, true
	}
	if d.peek() != '[' {
		d.fail("expected array")
		return false, false
	}
	d.i++
	if d.peek() == ']' {
		d.i++
		return false, false
	}
	return d.err == nil, false
}

// arrayNext consumes "," (reporting another element) or "]".
func (d *decoder) arrayNext() bool {
	switch d.peek() {
	case ',':
		d.i++
		return d.err == nil
	case ']':
		d.i++
		return false
	}
	d.fail("expected ',' or ']'")
	return false
}

// skip consumes any value.
func (d *decoder) skip() {
	switch d.peek() {
	case '"':
		d.str()
	case '{':
		for more := d.objectStart(); more; more = d.objectNext() {
			d.key()
			d.skip()
		}
	case '[':
		more, _ := d.arrayStart()
		for ; more; more = d.arrayNext() {
			d.skip()
		}
	case 't', 'f':
		d.boolean()
	case 'n':
		d.null()
	default:
		d.num()
	}
}

func (d *decoder) strOrNull() string {
	if d.null() {
		return ""
	}
	return d.str()
}

func (d *decoder) numOrNull() float64 {
	if d.null() {
		return 0
	}
	return d.num()
}

func (d *decoder) intOrNull() int {
	if d.null() {
		return 0
	}
	return d.integer()
}

func (d *decoder) boolOrNull() bool {
	if d.null() {
		return false
	}
	return d.boolean()
}

func (d *decoder) strings() []string {
	more, isNull := d.arrayStart()
	if isNull {
		return nil
	}
	out := []string{}
	for ; more; more = d.arrayNext() {
		out = append(out, d.strOrNull())
	}
	return out
}

func (d *decoder) finish() error {
	d.ws()
	if d.err == nil && d.i != len(d.b) {
		d.fail("trailing data")
	}
	return d.err
}

// DecodeJSON decodes an InputEvent.
func (ev *InputEvent) DecodeJSON(b []byte) error {
	d := decoder{b: b}
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key()) {
		case "text":
			ev.Text = d.strOrNull()
		default:
			d.skip()
		}
	}
	return d.finish()
}

// DecodeJSON decodes a CommandEvent.
func (ev *CommandEvent) DecodeJSON(b []byte) error {
	d := decoder{b: b}
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key()) {
		case "name":
			ev.Name = d.strOrNull()
		case "args":
			ev.Args = d.strOrNull()
		case "cwd":
			ev.Cwd = d.strOrNull()
		default:
			d.skip()
		}
	}
	return d.finish()
}

// DecodeJSON decodes a BeforeAgentStartEvent.
func (ev *BeforeAgentStartEvent) DecodeJSON(b []byte) error {
	d := decoder{b: b}
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key()) {
		case "input":
			ev.Input = d.strOrNull()
		case "systemPrompt":
			ev.SystemPrompt = d.strOrNull()
		case "systemPromptBytes":
			ev.SystemPromptBytes = d.intOrNull()
		case "options":
			d.options(&ev.Options)
		default:
			d.skip()
		}
	}
	return d.finish()
}

func (d *decoder) options(o *Options) {
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key()) {
		case "customPrompt":
			o.CustomPrompt = d.strOrNull()
		case "appendText":
			o.AppendText = d.strOrNull()
		case "cwd":
			o.Cwd = d.strOrNull()
		case "tools":
			o.Tools = d.strings()
		case "guidelines":
			o.Guidelines = d.strings()
		case "contextFiles":
			o.ContextFiles = d.strings()
		case "skills":
			o.Skills = d.strings()
		case "sections":
			more, isNull := d.arrayStart()
			o.Sections = nil
			if !isNull {
				o.Sections = []SectionInfo{}
			}
			for ; more; more = d.arrayNext() {
				var s SectionInfo
				for more := d.objectStart(); more; more = d.objectNext() {
					switch string(d.key()) {
					case "name":
						s.Name = d.strOrNull()
					case "order":
						s.Order = d.numOrNull()
					case "source":
						s.Source = d.strOrNull()
					case "bytes":
						s.Bytes = d.intOrNull()
					default:
						d.skip()
					}
				}
				o.Sections = append(o.Sections, s)
			}
		default:
			d.skip()
		}
	}
}

// DecodeJSON decodes an AssembleEvent.
func (ev *AssembleEvent) DecodeJSON(b []byte) error {
	d := decoder{b: b}
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key()) {
		case "sections":
			more, isNull := d.arrayStart()
			ev.Sections = nil
			if !isNull {
				ev.Sections = make([]Section, 0, 8)
			}
			for ; more; more = d.arrayNext() {
				var s Section
				for more := d.objectStart(); more; more = d.objectNext() {
					switch string(d.key()) {
					case "name":
						s.Name = d.strOrNull()
					case "order":
						s.Order = d.numOrNull()
					case "text":
						s.Text = d.strOrNull()
					case "bytes":
						s.Bytes = d.intOrNull()
					case "interpolate":
						s.Interpolate = d.boolOrNull()
					case "complete":
						s.Complete = d.boolOrNull()
					case "source":
						s.Source = d.strOrNull()
					default:
						d.skip()
					}
				}
				ev.Sections = append(ev.Sections, s)
			}
		case "contexts":
			more, isNull := d.arrayStart()
			ev.Contexts = nil
			if !isNull {
				ev.Contexts = []Context{}
			}
			for ; more; more = d.arrayNext() {
				var c Context
				for more := d.objectStart(); more; more = d.objectNext() {
					switch string(d.key()) {
					case "name":
						c.Name = d.strOrNull()
					case "order":
						c.Order = d.numOrNull()
					case "text":
						c.Text = d.strOrNull()
					default:
						d.skip()
					}
				}
				ev.Contexts = append(ev.Contexts, c)
			}
		case "tools":
			ev.Tools = d.strings()
		case "variables":
			more, isNull := d.arrayStart()
			ev.Variables = nil
			if !isNull {
				ev.Variables = []Variable{}
			}
			for ; more; more = d.arrayNext() {
				var v Variable
				for more := d.objectStart(); more; more = d.objectNext() {
					switch string(d.key()) {
					case "name":
						v.Name = d.strOrNull()
					case "value":
						v.Value = nil
						if !d.null() {
							s := d.str()
							v.Value = &s
						}
					default:
						d.skip()
					}
				}
				ev.Variables = append(ev.Variables, v)
			}
		case "contextsSuppressed":
			ev.ContextsSuppressed = d.boolOrNull()
		default:
			d.skip()
		}
	}
	return d.finish()
}
