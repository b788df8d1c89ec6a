package session

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/piwasm/pi/core/prompt"
)

// messageEntries are message entries as a turn records them, plus the
// strings and numbers whose encoding has rules of its own.
func messageEntries() []Entry {
	yes, no := true, false
	usage := &prompt.Usage{Input: 120, Output: 30, CacheRead: 7, TotalTokens: 157}
	priced := &prompt.Usage{Input: 1, Output: 2, Cost: prompt.Cost{Input: 0.000003, Output: 1.5e-7, CacheRead: 12.25, CacheWrite: 1e21, Total: 1e-9}}
	text := "line 1 of 01: \"quoted\" & <tag> \\ back\n\ttab\r\b\f\x01\x1f\x7f é ✓ \u2028\u2029 bad:\xff\xfe end"
	return []Entry{
		{Type: TypeMessage, ID: "a1b2c3d4", Time: "2026-12-01T19:11:19.946Z", Message: &prompt.Message{Role: "user", Content: prompt.Content{Blocks: []prompt.Block{{Type: "text", Text: "Fix the first line of every file."}}}, Timestamp: 1796152244202}},
		{Type: TypeMessage, ID: "0badc0de", ParentID: "a1b2c3d4", Time: "2026-12-01T19:11:19.964Z", Message: &prompt.Message{Role: "assistant",
			Content: prompt.Content{Blocks: []prompt.Block{{Type: "thinking", Thinking: "look", Signature: "sig"}, {Type: "text", Text: "Turn 5."},
				{Type: "toolCall", ID: "e5", Name: "edit", Arguments: json.RawMessage("{ \"path\": \"f04.txt\",\n \"edits\": [ {\"oldText\":\"line 1 of\",\"newText\":\"LINE 1 of\"} ] }")},
				{Type: "toolCall", ID: "r5", Name: "read", Arguments: json.RawMessage(`{}`), ArgumentsError: "not an object"}}},
			API: "openai-completions", Provider: "mock", Model: "mock-1", Usage: usage, StopReason: "toolUse", Timestamp: 1796152244203}},
		{Type: TypeMessage, ID: "11111111", ParentID: "0badc0de", Message: &prompt.Message{Role: "toolResult", Content: prompt.Content{Blocks: []prompt.Block{{Type: "text", Text: text}, {Type: "image", Data: "iVBORw0KGgo=", MimeType: "image/png"}}},
			ToolCallID: "e5", ToolName: "edit", Details: json.RawMessage(`{"diff": "-1 line\n+1 LINE", "firstChangedLine": 1}`), IsError: &no, Timestamp: 5}, Extension: "team-section"},
		{Type: TypeMessage, ID: "22222222", ParentID: "11111111", Message: &prompt.Message{Role: "toolResult", Content: prompt.Content{Blocks: []prompt.Block{}}, ToolCallID: "b1", ToolName: "bash", IsError: &yes, Details: json.RawMessage(`null`)}},
		{Type: TypeMessage, Message: &prompt.Message{Role: "assistant", Content: prompt.Content{Str: text}, Usage: priced, ErrorMessage: "cut <short>", Timestamp: -1}},
		{Type: TypeMessage, ID: "33333333", ParentID: "22222222", Message: &prompt.Message{Role: "system", Content: prompt.TextContent("")}},
		// The system message a session starts with, and the kinds of
		// message the established harness's sessions carry.
		{Type: TypeMessage, ID: "44444444", Time: "2026-12-01T19:11:19.946Z", Message: &prompt.Message{Role: "system", Content: prompt.TextContent(""),
			Sections:     prompt.Patches{{Name: "preamble", Text: &text}, {Name: "gone"}, {Name: "<&>\u2028", Text: new(string)}},
			ToolsAdded:   []prompt.ToolRef{{Name: "read", Description: "Show a file's contents & <more>", Parameters: json.RawMessage("{ \"type\": \"object\",\n \"required\": [\"path\"] }")}, {Name: "bare"}},
			ToolsRemoved: []prompt.ToolRef{{Name: "write", Parameters: json.RawMessage(`null`)}}, Timestamp: 1796173483820}},
		{Type: TypeMessage, Message: &prompt.Message{Role: "system", Sections: prompt.Patches{}, ToolsAdded: []prompt.ToolRef{}}},
		{Type: TypeMessage, ID: "55555555", ParentID: "44444444", Message: &prompt.Message{Role: "compactionSummary", Summary: text, TokensBefore: -3, FromID: "root", Timestamp: 9}},
		{Type: TypeMessage, Message: &prompt.Message{Role: "custom", CustomType: "note", Content: prompt.TextContent("hi"), Display: &no}},
		{Type: TypeMessage, Message: &prompt.Message{Role: "bashExecution", Command: "ls && echo <x>", Output: text, ExitCode: new(int), Cancelled: true, Truncated: true, FullOutputPath: "/tmp/o", ExcludeFromContext: true}},
		{Type: TypeMessage, Message: &prompt.Message{Role: "bashExecution", Command: "false", ExitCode: &[]int{-1}[0], Display: &yes}},
		// A reply with every fact the established harness records about
		// it (its reply to the same script, field for field), and one
		// measured at 0 ms whose provider reported no usage.
		{Type: TypeMessage, ID: "66666666", ParentID: "55555555", Time: "2026-12-01T19:11:19.964Z", Message: &prompt.Message{Role: "assistant",
			Content: prompt.Content{Blocks: []prompt.Block{{Type: "text", Text: "one"}}}, API: "openai-completions", Provider: "mock", Model: "m",
			Usage:      &prompt.Usage{Input: 3000, Output: 10, Reasoning: new(int), TotalTokens: 3010, Cost: prompt.Cost{TotalFromProvider: &no}},
			StopReason: "stop", Timestamp: 1796152244203, ResponseID: "chatcmpl-scripted", ResponseModel: "scripted", RawStopReason: "stop", DurationMs: &[]int64{88}[0], ThinkingLevel: "off"}},
		{Type: TypeMessage, Message: &prompt.Message{Role: "assistant", Content: prompt.Content{Str: text}, Usage: &prompt.Usage{Reasoning: &[]int{-7}[0], Cost: prompt.Cost{Total: 2, TotalFromProvider: &yes}, CacheWrite1h: new(int)},
			StopReason: "error", ErrorMessage: text, ResponseID: text, RawStopReason: "<&>", DurationMs: new(int64), ThinkingLevel: "xhigh"}},
	}
}

// The message entries a turn records are written without reflection, to
// the bytes encoding/json writes.
func TestMessageEntryJSON(t *testing.T) {
	for i, e := range messageEntries() {
		got, ok := appendMessageEntry(nil, e)
		if !ok {
			t.Errorf("entry %d: not written by appendMessageEntry", i)
			continue
		}
		want, err := e.marshalReflect()
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("entry %d:\n got %s\nwant %s", i, got, want)
		}
	}
	// What it leaves to encoding/json.
	for name, e := range map[string]Entry{
		"not JSON":       {Type: TypeMessage, Message: &prompt.Message{Role: "toolResult", Details: json.RawMessage(`{x}`)}},
		"bad parameters": {Type: TypeMessage, Message: &prompt.Message{Role: "system", ToolsAdded: []prompt.ToolRef{{Name: "t", Parameters: json.RawMessage(`{`)}}}},
		"NaN cost":       {Type: TypeMessage, Message: &prompt.Message{Role: "assistant", Usage: &prompt.Usage{Cost: prompt.Cost{Total: math.NaN()}}}},
		"no message":     {Type: TypeMessage},
		"model change":   {Type: TypeModelChange, Provider: "p", ModelID: "m"},
	} {
		if _, ok := appendMessageEntry(nil, e); ok {
			t.Errorf("%s: written by appendMessageEntry", name)
		}
	}
}

// FuzzMessageEntryJSON holds appendMessageEntry to encoding/json: whatever
// it writes, encoding/json writes byte for byte.
func FuzzMessageEntryJSON(f *testing.F) {
	for _, e := range messageEntries() {
		m := e.Message
		var args []byte
		if b := m.Content.Blocks; len(b) > 0 {
			args = b[len(b)-1].Arguments
		}
		cost := 0.0
		if m.Usage != nil {
			cost = m.Usage.Cost.Input
		}
		f.Add(m.Content.Text(), string(args), string(m.Details), cost, m.Timestamp, e.ParentID)
	}
	f.Fuzz(func(t *testing.T, text, args, details string, cost float64, ts int64, parent string) {
		e := Entry{Type: TypeMessage, ID: "abcdef01", ParentID: parent, Time: text, Extension: text, Message: &prompt.Message{
			Role: text, Content: prompt.Content{Blocks: []prompt.Block{{Type: "toolCall", Text: text, Name: text, Arguments: json.RawMessage(args)}}},
			Usage: &prompt.Usage{Input: int(ts), Cost: prompt.Cost{Input: cost, Total: -cost}}, Details: json.RawMessage(details), Timestamp: ts,
			ResponseID: text, ResponseModel: parent, RawStopReason: args, ThinkingLevel: details}}
		if ts%2 != 0 {
			// The optional numbers and flag, set or left out.
			n, fromProvider := int(ts/2), cost > 0
			e.Message.Usage.Reasoning, e.Message.Usage.Cost.TotalFromProvider, e.Message.DurationMs = &n, &fromProvider, &ts
			e.Message.Usage.CacheWrite1h = &n
		}
		got, ok := appendMessageEntry(nil, e)
		want, err := e.marshalReflect()
		if !ok {
			return
		}
		if err != nil {
			t.Fatalf("written, but encoding/json refuses it: %v", err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
	})
}

func TestRequestEntryJSON(t *testing.T) {
	for i, e := range []Entry{
		{Type: TypeRequest, ID: "7f487138", ParentID: "5f8f1906", Time: "2026-12-01T21:41:03.406Z", Route: "mock/mock-1", API: "openai-completions"},
		{Type: TypeRequest, ID: "7f487138", Time: "2026-12-01T21:41:03.406Z", Route: "anthropic/claude", API: "anthropic-messages", Forced: "team-section"},
		{Type: TypeRequest, ID: "01", ParentID: "02"},
		{Type: TypeRequest, Forced: "only"},
		{Type: TypeRequest, ID: "<&>"},
		{Type: TypeRequest, ID: "a\"b", ParentID: "<p>&", Route: "r\x01\u2028\xff", API: "é\\"},
	} {
		got, ok := appendRequestEntry(nil, e)
		if !ok {
			t.Fatalf("entry %d: not written by appendRequestEntry", i)
		}
		want, err := e.marshalReflect()
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("entry %d:\n got %s\nwant %s", i, got, want)
		}
	}
	if _, ok := appendRequestEntry(nil, Entry{Type: TypeModelChange, Provider: "p"}); ok {
		t.Error("a model change was written as a request")
	}
}

// FuzzRequestEntryJSON holds appendRequestEntry to encoding/json.
func FuzzRequestEntryJSON(f *testing.F) {
	f.Add("7f487138", "5f8f1906", "2026-12-01T21:41:03.406Z", "mock/mock-1", "openai-completions", "")
	f.Add("", "", "", "", "", "x")
	f.Fuzz(func(t *testing.T, id, parent, ts, route, api, forced string) {
		e := Entry{Type: TypeRequest, ID: id, ParentID: parent, Time: ts, Route: route, API: api, Forced: forced}
		got, _ := appendRequestEntry(nil, e)
		want, err := e.marshalReflect()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
	})
}

// recordEntries are the other kinds of entry a running session writes.
func recordEntries() []Entry {
	odd := "a\"b <&> \\ \n\t\x01 é \u2028 bad:\xff end"
	note := "Updated: " + odd
	return []Entry{
		{Type: TypeProjection, ID: "a3cb6f54", ParentID: "728f690b", Time: "2026-12-02T01:04:43.821Z",
			Commits: []ProjectionCommit{{Op: "append", Seq: 0, Text: "You are pi.\n\n<tools>\n- read\n</tools>"}}},
		{Type: TypeProjection, ID: "a3cb6f55", Time: "t", Commits: []ProjectionCommit{{Op: "replace", Seq: 3, Text: odd, Content: &note}, {Op: "append", Seq: -1, Content: new(string)}},
			InHistory: true, StartsSeries: true},
		{Type: TypeProjection, ID: "01", ParentID: "02", StartsSeries: true},
		{Type: TypeProjection, Commits: []ProjectionCommit{}},
		{Type: TypeModelChange, ID: "02e5e792", ParentID: "ce4f54de", Time: "2026-12-02T01:04:43.821Z", Provider: "mock", ModelID: "mock-1"},
		{Type: TypeModelChange, ID: "02e5e792", Provider: odd, ThinkingLevel: "high"},
		{Type: TypeModelChange},
		{Type: TypeThinkingChange, ID: "4a3f8c4c", ParentID: "02e5e792", Time: "2026-12-02T01:04:43.821Z", ThinkingLevel: "off"},
		{Type: TypeThinkingChange, ID: "4a3f8c4c", Provider: "p", ModelID: "m"},
		{Type: TypeContext, ID: "c0", ParentID: "c1", Time: "t", Text: odd},
		{Type: TypeContext},
		{Type: TypeError, ID: "e0", ParentID: "e1", Time: "t", Text: odd},
		{Type: TypeError, ID: "e0"},
		{Type: TypeDecision, ID: "d0", ParentID: "d1", Time: "t", Decision: &Decision{ToolCallID: "b1", Tool: "bash", Outcome: "deny", Rule: "bash(rm *)", Source: "settings", Reason: odd}},
		{Type: TypeDecision, ID: "d0", Decision: &Decision{}},
		{Type: TypeDecision, ID: "d0"},
	}
}

// Every kind of entry a running session writes is written without
// reflection, to the bytes encoding/json writes; the tree's rarer kinds are
// left to it.
func TestEntryJSON(t *testing.T) {
	for i, e := range append(recordEntries(), messageEntries()...) {
		got, ok := appendEntryJSON([]byte("prefix"), e)
		if !ok {
			t.Errorf("entry %d (%s): not written by appendEntryJSON", i, e.Type)
			continue
		}
		want, err := e.marshalReflect()
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		if !bytes.Equal(got, append([]byte("prefix"), want...)) {
			t.Errorf("entry %d (%s):\n got %s\nwant prefix%s", i, e.Type, got, want)
		}
	}
	for _, e := range []Entry{
		{Type: TypeCompaction, Summary: "s"},
		{Type: TypeLabel, TargetID: "x"},
		{Type: "unknown"},
		{Type: TypeMessage, Message: &prompt.Message{Details: json.RawMessage(`nope`)}},
	} {
		if got, ok := appendEntryJSON([]byte("prefix"), e); ok || string(got) != "prefix" {
			t.Errorf("%s: written by appendEntryJSON (%q)", e.Type, got)
		}
	}
}

// FuzzEntryJSON holds appendEntryJSON to encoding/json for the record
// kinds, whose members are all strings, numbers and booleans.
func FuzzEntryJSON(f *testing.F) {
	for _, e := range recordEntries() {
		text := e.Text
		if len(e.Commits) > 0 {
			text = e.Commits[0].Text
		}
		f.Add(e.Type, e.ID, e.ParentID, text, e.Provider, 3, e.InHistory)
	}
	f.Fuzz(func(t *testing.T, kind, id, parent, text, other string, n int, flag bool) {
		kinds := []string{TypeProjection, TypeModelChange, TypeThinkingChange, TypeContext, TypeError, TypeDecision, TypeRequest}
		e := Entry{Type: kinds[uint(n)%uint(len(kinds))], ID: id, ParentID: parent, Time: kind, Text: text, Provider: other, ModelID: text,
			ThinkingLevel: other, Route: text, API: other, InHistory: flag, StartsSeries: n%2 == 0,
			Commits:  []ProjectionCommit{{Op: other, Seq: n, Text: text, Content: &kind}, {Op: text, Seq: -n}},
			Decision: &Decision{ToolCallID: id, Tool: text, Outcome: other, Rule: kind, Source: parent, Reason: text}}
		got, ok := appendEntryJSON(nil, e)
		if !ok {
			t.Fatalf("%s not written", e.Type)
		}
		want, err := e.marshalReflect()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
	})
}

// The session header is written without reflection, as encoding/json
// writes it.
func TestHeaderJSON(t *testing.T) {
	for _, h := range []Header{
		{Type: TypeSession, Version: FormatVersion, ID: "16adc50cde65c6a8", Timestamp: "2026-12-02T01:04:43.817Z", Cwd: "/tmp/hw/proj"},
		{Type: TypeSession, Version: -1, ID: "<&>", Timestamp: "\u2028", Cwd: "C:\\Users\\me\\\"odd\"\xff", ParentSession: "/a/b & c.jsonl"},
		{},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(h); err != nil {
			t.Fatal(err)
		}
		if got := append(appendHeader(nil, h), '\n'); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("\n got %s\nwant %s", got, want.Bytes())
		}
	}
}
