package session

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/internal/jsonstr"
)

// appendMessageEntry appends a message entry as Entry.MarshalJSON's
// encoding/json path writes it, for the fields a turn's messages use (a
// prompt, an assistant reply, a tool result). ok is false for an entry with
// any other field set, or a value encoding/json would refuse; the caller
// then encodes it through encoding/json. Every entry of a session is
// written once, and reflection over the entry and its message was most of
// that cost. TestMessageEntryJSON and FuzzMessageEntryJSON hold the two to
// the same bytes.
func appendMessageEntry(b []byte, e Entry) ([]byte, bool) {
	m := e.Message
	if e.Type != TypeMessage || m == nil || !entryFieldsPlain(m) {
		return b, false
	}
	b = append(b, `{"type":`...)
	b = jsonstr.Append(b, e.Type)
	b = appendLinks(b, e)
	if e.Time != "" {
		b = append(b, `,"timestamp":`...)
		b = jsonstr.Append(b, e.Time)
	}
	b = append(b, `,"message":{"role":`...)
	b = jsonstr.Append(b, m.Role)
	b = append(b, `,"content":`...)
	var ok bool
	if b, ok = appendContent(b, m.Content); !ok {
		return b, false
	}
	b = appendField(b, "api", m.API)
	b = appendField(b, "provider", m.Provider)
	b = appendField(b, "model", m.Model)
	if u := m.Usage; u != nil {
		b = append(b, `,"usage":{"input":`...)
		b = strconv.AppendInt(b, int64(u.Input), 10)
		b = append(b, `,"output":`...)
		b = strconv.AppendInt(b, int64(u.Output), 10)
		b = append(b, `,"cacheRead":`...)
		b = strconv.AppendInt(b, int64(u.CacheRead), 10)
		b = append(b, `,"cacheWrite":`...)
		b = strconv.AppendInt(b, int64(u.CacheWrite), 10)
		b = append(b, `,"totalTokens":`...)
		b = strconv.AppendInt(b, int64(u.TotalTokens), 10)
		c := u.Cost
		for _, f := range [...]struct {
			key string
			v   float64
		}{{`,"cost":{"input":`, c.Input}, {`,"output":`, c.Output}, {`,"cacheRead":`, c.CacheRead}, {`,"cacheWrite":`, c.CacheWrite}, {`,"total":`, c.Total}} {
			b = append(b, f.key...)
			if b, ok = appendFloat(b, f.v); !ok {
				return b, false
			}
		}
		b = append(b, "}}"...)
	}
	b = appendField(b, "stopReason", m.StopReason)
	b = appendField(b, "errorMessage", m.ErrorMessage)
	b = appendField(b, "toolCallId", m.ToolCallID)
	b = appendField(b, "toolName", m.ToolName)
	if len(m.Details) > 0 {
		b = append(b, `,"details":`...)
		if b, ok = appendRaw(b, m.Details); !ok {
			return b, false
		}
	}
	if m.IsError != nil {
		b = append(b, `,"isError":`...)
		b = strconv.AppendBool(b, *m.IsError)
	}
	b = append(b, `,"timestamp":`...)
	b = strconv.AppendInt(b, m.Timestamp, 10)
	b = append(b, '}')
	if e.Extension != "" {
		b = append(b, `,"extension":`...)
		b = jsonstr.Append(b, e.Extension)
	}
	return append(b, '}'), true
}

// entryFieldsPlain reports whether m sets only the fields appendMessageEntry
// writes.
func entryFieldsPlain(m *prompt.Message) bool {
	return m.Sections == nil && m.ToolsAdded == nil && m.ToolsRemoved == nil &&
		m.Summary == "" && m.TokensBefore == 0 && m.FromID == "" && m.CustomType == "" &&
		m.Display == nil && m.Command == "" && m.Output == "" && m.ExitCode == nil &&
		!m.Cancelled && !m.Truncated && m.FullOutputPath == "" && !m.ExcludeFromContext
}

func appendContent(b []byte, c prompt.Content) ([]byte, bool) {
	if c.Blocks == nil {
		return jsonstr.Append(b, c.Str), true
	}
	b = append(b, '[')
	for i, k := range c.Blocks {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":`...)
		b = jsonstr.Append(b, k.Type)
		b = appendField(b, "text", k.Text)
		b = appendField(b, "data", k.Data)
		b = appendField(b, "mimeType", k.MimeType)
		b = appendField(b, "thinking", k.Thinking)
		b = appendField(b, "thinkingSignature", k.Signature)
		b = appendField(b, "id", k.ID)
		b = appendField(b, "name", k.Name)
		if len(k.Arguments) > 0 {
			b = append(b, `,"arguments":`...)
			var ok bool
			if b, ok = appendRaw(b, k.Arguments); !ok {
				return b, false
			}
		}
		b = appendField(b, "argumentsError", k.ArgumentsError)
		b = append(b, '}')
	}
	return append(b, ']'), true
}

// appendField appends ,"key":"v" unless v is empty (omitempty).
func appendField(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return jsonstr.Append(b, v)
}

// appendRaw appends raw JSON compacted, as encoding/json writes a
// json.RawMessage; false when it is not valid JSON.
func appendRaw(b []byte, raw json.RawMessage) ([]byte, bool) {
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, raw); err != nil {
		return b, false
	}
	return buf.Bytes(), true
}

// appendFloat writes f as encoding/json does (shortest form, exponent
// below 1e-6 and from 1e21); false for NaN and infinities, which it
// refuses.
func appendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 is written e-9.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// appendLinks appends an entry's id and parentId members. A root entry
// says parentId: null, as the established harness writes it.
func appendLinks(b []byte, e Entry) []byte {
	if e.ID != "" {
		b = append(b, `,"id":`...)
		b = jsonstr.Append(b, e.ID)
	}
	switch {
	case e.ParentID != "":
		b = append(b, `,"parentId":`...)
		b = jsonstr.Append(b, e.ParentID)
	case e.ID != "":
		b = append(b, `,"parentId":null`...)
	}
	return b
}

// appendRequestEntry appends the record of a model request (one per turn)
// as Entry.MarshalJSON's encoding/json path writes it: the same fields wire
// takes for it, in the same order. TestRequestEntryJSON and
// FuzzRequestEntryJSON hold the two to the same bytes.
func appendRequestEntry(b []byte, e Entry) ([]byte, bool) {
	if e.Type != TypeRequest {
		return b, false
	}
	b = append(b, `{"type":"custom"`...)
	b = appendLinks(b, e)
	b = appendField(b, "timestamp", e.Time)
	b = append(b, `,"customType":`...)
	b = jsonstr.Append(b, customTypes[e.Type])
	b = append(b, `,"data":{`...)
	n := len(b)
	b = appendField(b, "route", e.Route)
	b = appendField(b, "api", e.API)
	b = appendField(b, "forced", e.Forced)
	if len(b) > n {
		b = append(b[:n], b[n+1:]...) // the first member's comma
	}
	return append(b, "}}"...), true
}
