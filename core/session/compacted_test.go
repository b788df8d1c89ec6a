package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/prompt"
)

// conversation is a chat-completions body's messages without the system
// prompt (each harness sends its own), as comparable strings: role, text,
// tool calls.
func conversation(t *testing.T, body map[string]any) []string {
	t.Helper()
	var out []string
	for _, x := range body["messages"].([]any) {
		m := x.(map[string]any)
		role := m["role"].(string)
		if role == "system" || role == "developer" {
			continue
		}
		text := ""
		switch c := m["content"].(type) {
		case string:
			text = c
		case []any:
			for _, p := range c {
				if pm := p.(map[string]any); pm["type"] == "text" {
					text += pm["text"].(string)
				}
			}
		}
		s := role + ": " + text
		if tc, ok := m["tool_calls"].([]any); ok {
			for _, c := range tc {
				f := c.(map[string]any)["function"].(map[string]any)
				var args any
				json.Unmarshal([]byte(f["arguments"].(string)), &args)
				a, _ := json.Marshal(args)
				s += " [call " + f["name"].(string) + " " + string(a) + "]"
			}
		}
		out = append(out, s)
	}
	return out
}

// TestContinueSessionsTheEstablishedHarnessCompacted: sessions the
// established harness 1.6.0 compacted (three automatic compactions, one
// /compact with a focus, one overflow recovery with a context_edit), each
// continued by pi with one more prompt: the request pi sends carries the
// same conversation as the one that harness sent when it continued the
// same file (recorded beside it): the latest summary, the kept messages,
// the new prompt; nothing from before the cut.
func TestContinueSessionsTheEstablishedHarnessCompacted(t *testing.T) {
	for _, tc := range []struct{ name, prompt string }{
		{"compacted-auto", "fifth message"},
		{"compacted-manual", "three"},
		{"compacted-overflow", "four"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "peer", tc.name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("testdata", "peer", tc.name+".request.json"))
			if err != nil {
				t.Fatal(err)
			}
			var peerBody map[string]any
			if err := json.Unmarshal(want, &peerBody); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "s.jsonl")
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			m := newMockModel(t)
			r := newRunner(t, t.TempDir(), path, openaiRoute(m.srv.URL), nil)
			if _, err := r.Turn(context.Background(), Input{Text: tc.prompt}, false); err != nil {
				t.Fatal(err)
			}
			body := m.last(t)
			if first := body["messages"].([]any)[0].(map[string]any)["role"]; first != "system" && first != "developer" {
				t.Fatalf("the request's first message is %v, not the system prompt: %v", first, body["messages"])
			}
			got, exp := conversation(t, body), conversation(t, peerBody)
			if !reflect.DeepEqual(got, exp) {
				t.Fatalf("pi's request differs from the established harness's:\npi:   %q\npeer: %q", got, exp)
			}
			if !strings.HasPrefix(got[0], "user: The conversation history before this point was compacted") {
				t.Fatalf("the request does not start with the summary: %q", got[0])
			}
		})
	}
}

// TestHistoryOfEveryEntryType: branch summaries, other extensions'
// messages (with images), commands the user ran, context edits (omit and
// replace), labels and session names, each as the established harness
// sends it.
func TestHistoryOfEveryEntryType(t *testing.T) {
	exit := 2
	msg := func(id string, m prompt.Message) Entry { return Entry{Type: TypeMessage, ID: id, Message: &m} }
	text := func(role, s string) prompt.Message {
		return prompt.Message{Role: role, Content: prompt.Content{Blocks: []prompt.Block{{Type: "text", Text: s}}}}
	}
	img := prompt.Content{Blocks: []prompt.Block{{Type: "text", Text: "see"}, {Type: "image", Data: "AAAA", MimeType: "image/png"}}}
	repl := prompt.TextContent("shortened")
	entries := []Entry{
		msg("a", text("user", "first")),
		msg("b", text("assistant", "long answer")),
		{Type: TypeLabel, ID: "c", TargetID: "a", Label: "start"},
		{Type: TypeSessionInfo, ID: "d", Name: "my session"},
		{Type: TypeBranchSummary, ID: "e", Summary: "tried X", FromID: "zz"},
		{Type: TypeCustomMessage, ID: "f", CustomType: "other.ext", Content: &img, Display: true},
		msg("g", prompt.Message{Role: "bashExecution", Command: "make", Output: "boom", ExitCode: &exit}),
		msg("h", prompt.Message{Role: "bashExecution", Command: "ls", Output: "x", ExcludeFromContext: true}),
		msg("i", text("assistant", "failed attempt")),
		{Type: TypeContextEdit, ID: "j", TargetID: "i"},
		{Type: TypeContextEdit, ID: "k", TargetID: "b", Replacement: &repl},
		{Type: TypeModelChange, ID: "l", Provider: "p", ModelID: "m"},
	}
	var got []string
	for _, m := range Messages(History(entries), nil) {
		s := m.Role + ": " + m.Content
		for _, p := range m.Parts {
			s += " <" + p.Type + ":" + p.Text + p.MimeType + ">"
		}
		got = append(got, s)
	}
	want := []string{
		"user:  <text:first>",
		"assistant: shortened",
		"user:  <text:The following is a summary of a branch that this conversation came back from:\n\n<summary>\ntried X</summary>>",
		"user:  <text:see> <image:image/png>",
		"user:  <text:Ran `make`\n```\nboom\n```\n\nCommand exited with code 2>",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
}

// TestEntriesRoundTrip: the entries pi writes for compaction, branch
// summaries and context edits read back as written, in the established
// harness's field names.
func TestEntriesRoundTrip(t *testing.T) {
	sys := prompt.Message{Role: "system", Content: prompt.TextContent("")}
	for _, e := range []Entry{
		{Type: TypeCompaction, ID: "c1", ParentID: "p", Summary: "S", FirstKeptEntryID: "k", TokensBefore: 5005, SystemMessage: &sys,
			Usage: &prompt.Usage{Input: 3}, Files: &FileLists{ReadFiles: []string{"a"}, ModifiedFiles: []string{}}},
		{Type: TypeBranchSummary, ID: "b1", ParentID: "p", Summary: "B", FromID: "root", Files: &FileLists{}},
		{Type: TypeContextEdit, ID: "e1", ParentID: "p", TargetID: "t"},
	} {
		raw, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var back Entry
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatal(err)
		}
		back.Raw = nil
		if e.Files != nil && e.Files.ReadFiles == nil {
			e.Files = &FileLists{ReadFiles: []string{}, ModifiedFiles: []string{}}
		}
		if !reflect.DeepEqual(back, e) {
			t.Errorf("%s round trip:\n%s\n%+v", e.Type, raw, back)
		}
		for _, key := range map[string][]string{
			TypeCompaction:    {`"firstKeptEntryId":"k"`, `"tokensBefore":5005`, `"details":{"readFiles":["a"],"modifiedFiles":[]}`, `"fromHook":false`},
			TypeBranchSummary: {`"fromId":"root"`, `"summary":"B"`},
			TypeContextEdit:   {`"targetId":"t"`, `"replacement":null`},
		}[e.Type] {
			if !strings.Contains(string(raw), key) {
				t.Errorf("%s lacks %s: %s", e.Type, key, raw)
			}
		}
	}
}

// TestContextMessagesAfterACompaction: what get_messages returns for a
// session the established harness compacted with /compact: the summary
// message, then the kept messages (that harness's own answer, recorded,
// had the same after its system message).
func TestContextMessagesAfterACompaction(t *testing.T) {
	tr, err := Load(filepath.Join("testdata", "peer", "compacted-manual.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ContextMessages(tr.Branch()) {
		got = append(got, m.Role+":"+m.Content.Text()+m.Summary)
	}
	want := []string{
		"compactionSummary:## Goal\nSUMMARY-4\n\n\n<read-files>\nnotes.txt\n</read-files>",
		"user:two",
		"assistant:Reply to: two",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

// TestPromptLeadsAfterOwnCompaction: pi's own session, compacted, then
// continued with a changed prompt (AGENTS.md edited): the system prompt
// still opens the chat-completions request, ahead of the summary. On a
// route that takes no system message mid-conversation (servers whose chat
// template wants one system message, first) the changed prompt replaces
// the old one and is the only system message. On the Anthropic route the
// prompt goes in the system field and no system text leaks into the
// messages.
func TestPromptLeadsAfterOwnCompaction(t *testing.T) {
	for _, api := range []string{"openai", "openai-system-first", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			m := newMockModel(t)
			proj := t.TempDir()
			writeFile(t, filepath.Join(proj, "AGENTS.md"), "Use tabs.")
			path := filepath.Join(t.TempDir(), "s.jsonl")
			route := openaiRoute(m.srv.URL)
			switch api {
			case "openai-system-first":
				route.SystemInHistory = false
			case "anthropic":
				route = anthropicRoute(m.srv.URL)
			}
			for _, p := range []string{"one", "two"} {
				if _, err := newRunner(t, proj, path, route, nil).Turn(context.Background(), Input{Text: p}, false); err != nil {
					t.Fatal(err)
				}
			}
			tr, err := OpenAppend(path)
			if err != nil {
				t.Fatal(err)
			}
			var kept string
			for _, e := range tr.Snapshot() {
				if e.Type == TypeMessage && e.Message.Role == "user" && e.Message.Content.Text() == "two" {
					kept = e.ID
				}
			}
			if err := tr.Append(Entry{Type: TypeCompaction, Summary: "SUMMARY-X", FirstKeptEntryID: kept, TokensBefore: 100}); err != nil {
				t.Fatal(err)
			}
			tr.Close()
			writeFile(t, filepath.Join(proj, "AGENTS.md"), "Use spaces.")
			if _, err := newRunner(t, proj, path, route, nil).Turn(context.Background(), Input{Text: "three"}, false); err != nil {
				t.Fatal(err)
			}
			body := m.last(t)
			msgs := body["messages"].([]any)
			raw, _ := json.Marshal(msgs)
			if api != "anthropic" {
				if first := msgs[0].(map[string]any); first["role"] != "system" {
					t.Fatalf("the request does not open with the system prompt: %s", raw)
				}
				if !strings.Contains(string(raw), "Use spaces.") {
					t.Fatalf("the changed prompt is not sent: %s", raw)
				}
				if api == "openai-system-first" {
					for _, x := range msgs[1:] {
						if x.(map[string]any)["role"] == "system" {
							t.Fatalf("a second system message follows: %s", raw)
						}
					}
				}
				if conv := conversation(t, body); !strings.Contains(conv[0], "SUMMARY-X") {
					t.Fatalf("the summary is not the first message after the prompt: %q", conv)
				}
				return
			}
			sys, _ := json.Marshal(body["system"])
			if !strings.Contains(string(sys), "Use spaces.") || strings.Contains(string(raw), "Use spaces.") {
				t.Fatalf("system %s\nmessages %s", sys, raw)
			}
			if !strings.Contains(string(raw), "SUMMARY-X") {
				t.Fatalf("no summary: %s", raw)
			}
		})
	}
}
