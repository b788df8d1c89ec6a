package session

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"github.com/piwasm/pi/abi/jsonstr"
	"github.com/piwasm/pi/core/prompt"
)

// appendEntryJSON appends e as marshalReflect writes it, without
// reflection, for every kind of entry a session writes as it runs: the
// message entries of a turn (the system message with its sections and
// tools included), the request, projection, context, error and decision
// records, and the model and thinking-level changes. ok is false for the
// kinds it leaves to encoding/json (the tree's compactions, summaries,
// labels and edits, written rarely) and for a value encoding/json would
// refuse; b is then returned as it was given. Every entry of a session is
// written once, and reflection over the entry was a few per cent of the
// CPU of a one-reply run (`pi -p`). TestEntryJSON, TestMessageEntryJSON,
// TestRequestEntryJSON and the fuzz targets beside them hold the two to
// the same bytes.
func appendEntryJSON(b []byte, e Entry) ([]byte, bool) {
	n := len(b)
	var ok bool
	switch e.Type {
	case TypeMessage:
		b, ok = appendMessageEntry(b, e)
	case TypeRequest:
		b, ok = appendRequestEntry(b, e)
	case TypeProjection:
		b, ok = appendProjectionEntry(b, e), true
	case TypeModelChange, TypeThinkingChange:
		b, ok = appendChangeEntry(b, e), true
	case TypeContext:
		b, ok = appendContextEntry(b, e), true
	case TypeError:
		b, ok = appendErrorEntry(b, e), true
	case TypeDecision:
		b, ok = appendDecisionEntry(b, e), true
	}
	if !ok {
		return b[:n], false
	}
	return b, true
}

// appendHeader appends a session file's first line as encoding/json writes
// a Header (without HTML escaping). TestHeaderJSON holds the two to the
// same bytes.
func appendHeader(b []byte, h Header) []byte {
	b = append(b, `{"type":`...)
	b = jsonstr.Append(b, h.Type)
	b = append(b, `,"version":`...)
	b = strconv.AppendInt(b, int64(h.Version), 10)
	b = append(b, `,"id":`...)
	b = jsonstr.Append(b, h.ID)
	b = append(b, `,"timestamp":`...)
	b = jsonstr.Append(b, h.Timestamp)
	b = append(b, `,"cwd":`...)
	b = jsonstr.Append(b, h.Cwd)
	b = appendField(b, "parentSession", h.ParentSession)
	return append(b, '}')
}

// appendMessageEntry appends a message entry: the entry's links, then its
// message with every field prompt.Message has, in its order. ok is false
// for an entry without a message or a value encoding/json would refuse
// (raw JSON that is not valid, a cost that is not a finite number).
func appendMessageEntry(b []byte, e Entry) ([]byte, bool) {
	m := e.Message
	if e.Type != TypeMessage || m == nil {
		return b, false
	}
	b = append(b, `{"type":`...)
	b = jsonstr.Append(b, e.Type)
	b = appendLinks(b, e)
	b = appendField(b, "timestamp", e.Time)
	b = append(b, `,"message":`...)
	var ok bool
	if b, ok = appendMessage(b, m); !ok {
		return b, false
	}
	b = appendField(b, "extension", e.Extension)
	return append(b, '}'), true
}

// appendMessage appends m as encoding/json writes a prompt.Message.
func appendMessage(b []byte, m *prompt.Message) ([]byte, bool) {
	b = append(b, `{"role":`...)
	b = jsonstr.Append(b, m.Role)
	b = append(b, `,"content":`...)
	var ok bool
	if b, ok = appendContent(b, m.Content); !ok {
		return b, false
	}
	if len(m.Sections) > 0 {
		b = append(b, `,"sections":{`...)
		for i, p := range m.Sections {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonstr.Append(b, p.Name)
			b = append(b, ':')
			if p.Text == nil {
				b = append(b, "null"...)
			} else {
				b = jsonstr.Append(b, *p.Text)
			}
		}
		b = append(b, '}')
	}
	if b, ok = appendToolRefs(b, "toolsAdded", m.ToolsAdded); !ok {
		return b, false
	}
	if b, ok = appendToolRefs(b, "toolsRemoved", m.ToolsRemoved); !ok {
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
		if u.Reasoning != nil {
			b = append(b, `,"reasoning":`...)
			b = strconv.AppendInt(b, int64(*u.Reasoning), 10)
		}
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
		b = appendBoolPtr(b, "totalFromProvider", c.TotalFromProvider)
		b = append(b, '}')
		if u.CacheWrite1h != nil {
			b = append(b, `,"cacheWrite1h":`...)
			b = strconv.AppendInt(b, int64(*u.CacheWrite1h), 10)
		}
		b = append(b, '}')
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
	b = appendBoolPtr(b, "isError", m.IsError)
	b = appendField(b, "summary", m.Summary)
	if m.TokensBefore != 0 {
		b = append(b, `,"tokensBefore":`...)
		b = strconv.AppendInt(b, int64(m.TokensBefore), 10)
	}
	b = appendField(b, "fromId", m.FromID)
	b = appendField(b, "customType", m.CustomType)
	b = appendBoolPtr(b, "display", m.Display)
	b = appendField(b, "command", m.Command)
	b = appendField(b, "output", m.Output)
	if m.ExitCode != nil {
		b = append(b, `,"exitCode":`...)
		b = strconv.AppendInt(b, int64(*m.ExitCode), 10)
	}
	b = appendTrue(b, "cancelled", m.Cancelled)
	b = appendTrue(b, "truncated", m.Truncated)
	b = appendField(b, "fullOutputPath", m.FullOutputPath)
	b = appendTrue(b, "excludeFromContext", m.ExcludeFromContext)
	b = append(b, `,"timestamp":`...)
	b = strconv.AppendInt(b, m.Timestamp, 10)
	b = appendField(b, "responseId", m.ResponseID)
	b = appendField(b, "responseModel", m.ResponseModel)
	b = appendField(b, "rawStopReason", m.RawStopReason)
	if m.DurationMs != nil {
		b = append(b, `,"durationMs":`...)
		b = strconv.AppendInt(b, *m.DurationMs, 10)
	}
	b = appendField(b, "thinkingLevel", m.ThinkingLevel)
	return append(b, '}'), true
}

// appendToolRefs appends ,"key":[...] unless refs is empty (omitempty).
func appendToolRefs(b []byte, key string, refs []prompt.ToolRef) ([]byte, bool) {
	if len(refs) == 0 {
		return b, true
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, `":[`...)
	for i, r := range refs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = jsonstr.Append(b, r.Name)
		b = appendField(b, "description", r.Description)
		if len(r.Parameters) > 0 {
			b = append(b, `,"parameters":`...)
			var ok bool
			if b, ok = appendRaw(b, r.Parameters); !ok {
				return b, false
			}
		}
		b = append(b, '}')
	}
	return append(b, ']'), true
}

// appendCustomHead appends the start of a pi record stored as the
// established harness's entry of type typ: its links, timestamp and
// customType.
func appendCustomHead(b []byte, typ string, e Entry) []byte {
	b = append(b, `{"type":"`...)
	b = append(b, typ...)
	b = append(b, '"')
	b = appendLinks(b, e)
	b = appendField(b, "timestamp", e.Time)
	b = append(b, `,"customType":`...)
	return jsonstr.Append(b, customTypes[e.Type])
}

// appendProjectionEntry appends how a rendered prompt entered the request
// history (the wire's data members text, route, api and forced are empty
// for it).
func appendProjectionEntry(b []byte, e Entry) []byte {
	b = appendCustomHead(b, "custom", e)
	b = append(b, `,"data":{`...)
	n := len(b)
	if len(e.Commits) > 0 {
		b = append(b, `,"commits":[`...)
		for i, c := range e.Commits {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"op":`...)
			b = jsonstr.Append(b, c.Op)
			b = append(b, `,"seq":`...)
			b = strconv.AppendInt(b, int64(c.Seq), 10)
			b = append(b, `,"text":`...)
			b = jsonstr.Append(b, c.Text)
			if c.Content != nil {
				b = append(b, `,"content":`...)
				b = jsonstr.Append(b, *c.Content)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = appendTrue(b, "inHistory", e.InHistory)
	b = appendTrue(b, "startsSeries", e.StartsSeries)
	return append(dropComma(b, n), "}}"...)
}

// appendChangeEntry appends a model_change or thinking_level_change.
func appendChangeEntry(b []byte, e Entry) []byte {
	b = append(b, `{"type":`...)
	b = jsonstr.Append(b, e.Type)
	b = appendLinks(b, e)
	b = appendField(b, "timestamp", e.Time)
	if e.Type == TypeModelChange {
		b = appendField(b, "provider", e.Provider)
		b = appendField(b, "modelId", e.ModelID)
	} else {
		b = appendField(b, "thinkingLevel", e.ThinkingLevel)
	}
	return append(b, '}')
}

// appendContextEntry appends a runtime-context snapshot: a custom_message
// whose content is its text, not displayed.
func appendContextEntry(b []byte, e Entry) []byte {
	b = appendCustomHead(b, "custom_message", e)
	b = append(b, `,"content":`...)
	b = jsonstr.Append(b, e.Text)
	return append(b, `,"display":false}`...)
}

// appendErrorEntry appends a failed request's record.
func appendErrorEntry(b []byte, e Entry) []byte {
	b = appendCustomHead(b, "custom", e)
	b = append(b, `,"data":{`...)
	n := len(b)
	b = appendField(b, "text", e.Text)
	return append(dropComma(b, n), "}}"...)
}

// appendDecisionEntry appends why a tool call ran or did not: the
// decision's members (embedded in the wire's data, so first), none of the
// data's own.
func appendDecisionEntry(b []byte, e Entry) []byte {
	b = appendCustomHead(b, "custom", e)
	b = append(b, `,"data":{`...)
	if d := e.Decision; d != nil {
		b = append(b, `"toolCallId":`...)
		b = jsonstr.Append(b, d.ToolCallID)
		b = append(b, `,"tool":`...)
		b = jsonstr.Append(b, d.Tool)
		b = append(b, `,"outcome":`...)
		b = jsonstr.Append(b, d.Outcome)
		b = appendField(b, "rule", d.Rule)
		b = append(b, `,"source":`...)
		b = jsonstr.Append(b, d.Source)
		b = appendField(b, "reason", d.Reason)
	}
	return append(b, "}}"...)
}

// dropComma removes the comma the first member written from b[n:] starts
// with.
func dropComma(b []byte, n int) []byte {
	if len(b) > n {
		return append(b[:n], b[n+1:]...)
	}
	return b
}

// appendTrue appends ,"key":true when v is set (a bool with omitempty).
func appendTrue(b []byte, key string, v bool) []byte {
	if !v {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	return append(b, `":true`...)
}

// appendBoolPtr appends ,"key":v unless v is nil.
func appendBoolPtr(b []byte, key string, v *bool) []byte {
	if v == nil {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return strconv.AppendBool(b, *v)
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
	return append(dropComma(b, n), "}}"...), true
}
