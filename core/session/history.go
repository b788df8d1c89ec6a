package session

import (
	"strings"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/provider"
)

// Node is one message of the request history as replayed from a session
// file. System nodes come from projection commits: Text is the full prompt
// the node stands for, Content what the request carries for it.
type Node struct {
	Seq     int    `json:"seq"`
	Role    string `json:"role"`
	Text    string `json:"text"`
	Content string `json:"content"`
	// Msg is the message a user, assistant or tool-result node stands
	// for (its blocks: images, tool calls); nil for system and context
	// nodes.
	Msg *prompt.Message `json:"-"`
}

// History replays entries into the request history: user, assistant and
// context messages in order, and system nodes placed and rewritten by
// projection commits. Structured system messages (section patches) add no
// node of their own: they are what projections are computed from.
//
// A session written by the established harness has system messages but no
// projections: there the first system message stands for the prompt as
// that harness sent it (the replay of its system messages), until pi's
// first projection takes the slot over.
func History(entries []Entry) []Node {
	var nodes []Node
	seq := 0
	next := func() int { seq++; return seq - 1 }
	var sys []prompt.Message
	head := -1
	for i, e := range entries {
		switch e.Type {
		case TypeMessage:
			if e.Message == nil {
				continue
			}
			if e.Message.Role == "system" {
				if !foreignSystem(entries, i) {
					continue
				}
				sys = append(sys, *e.Message)
				cur, _ := prompt.Replay(sys)
				text := prompt.SystemText(cur)
				if head < 0 {
					head = len(nodes)
					nodes = append(nodes, Node{Seq: next(), Role: "system", Text: text, Content: text})
				} else {
					nodes[head].Text, nodes[head].Content = text, text
				}
				continue
			}
			nodes = append(nodes, Node{Seq: next(), Role: e.Message.Role, Text: e.Message.Content.Text(), Content: e.Message.Content.Text(), Msg: e.Message})
		case TypeContext:
			nodes = append(nodes, Node{Seq: next(), Role: "user", Text: e.Text, Content: e.Text})
		case TypeProjection:
			for _, c := range e.Commits {
				content := c.Text
				if c.Content != nil {
					content = *c.Content
				}
				n := Node{Seq: next(), Role: "system", Text: c.Text, Content: content}
				switch c.Op {
				case prompt.OpAppend:
					nodes = append(nodes, n)
				case prompt.OpReplace:
					for i := range nodes {
						if nodes[i].Seq == c.Seq {
							nodes[i] = n
						}
					}
				}
			}
		}
	}
	return nodes
}

// foreignSystem reports whether the system message at entries[i] was
// written by another harness: pi follows each of its system messages with
// a projection before the conversation goes on, so one followed by a
// conversation message first is not pi's. One at the end is pi's, about to
// be projected.
func foreignSystem(entries []Entry, i int) bool {
	for _, e := range entries[i+1:] {
		switch e.Type {
		case TypeProjection:
			return false
		case TypeContext:
			return true
		case TypeMessage:
			if e.Message != nil && e.Message.Role != "system" {
				return true
			}
		}
	}
	return false
}

// Foreign reports whether entries come from a session another harness
// started and pi has not projected a prompt into yet.
func Foreign(entries []Entry) bool {
	for _, e := range entries {
		if e.Type == TypeProjection {
			return false
		}
	}
	for i, e := range entries {
		if e.Type == TypeMessage && e.Message != nil && e.Message.Role == "system" && foreignSystem(entries, i) {
			return true
		}
	}
	return false
}

// SystemNodes returns the system nodes of a history in order, as the
// projection decision takes them.
func SystemNodes(h []Node) []prompt.Node {
	var out []prompt.Node
	for _, n := range h {
		if n.Role == "system" {
			out = append(out, prompt.Node{Seq: n.Seq, Text: prompt.Str(n.Text)})
		}
	}
	return out
}

// Messages turns a history into provider messages. Emptied system nodes
// are left out. A forced prompt, when non-nil, replaces every system
// message with one leading system message holding it. An assistant message
// that failed before saying anything (an error or abort with no content)
// is left out: it carries nothing a model could continue from.
func Messages(h []Node, forced *string) []provider.Message {
	out := make([]provider.Message, 0, len(h)+1)
	if forced != nil {
		out = append(out, provider.Message{Role: provider.RoleSystem, Content: *forced})
	}
	for _, n := range h {
		if n.Role == "system" && (forced != nil || n.Content == "") {
			continue
		}
		if n.Msg == nil {
			out = append(out, provider.Message{Role: n.Role, Content: n.Content})
			continue
		}
		if m, ok := toProvider(*n.Msg); ok {
			out = append(out, m)
		}
	}
	return out
}

// toProvider converts one transcript message.
func toProvider(m prompt.Message) (provider.Message, bool) {
	switch m.Role {
	case "assistant":
		out := provider.Message{Role: provider.RoleAssistant}
		var text []string
		for _, b := range m.Content.Blocks {
			switch b.Type {
			case "text":
				text = append(text, b.Text)
			case "thinking":
				out.Thinking += b.Thinking
				if b.Signature != "" {
					out.ThinkingSignature = b.Signature
				}
			case "toolCall":
				args := b.Arguments
				if len(args) == 0 {
					args = []byte("{}")
				}
				out.ToolCalls = append(out.ToolCalls, provider.ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
			}
		}
		if m.Content.Blocks == nil {
			text = append(text, m.Content.Str)
		}
		out.Content = strings.Join(text, "")
		if out.Content == "" && len(out.ToolCalls) == 0 && (m.StopReason == "error" || m.StopReason == "aborted") {
			return out, false
		}
		return out, true
	case prompt.RoleToolResult:
		out := provider.Message{Role: provider.RoleTool, ToolCallID: m.ToolCallID, ToolName: m.ToolName, IsError: m.Failed()}
		out.Parts = parts(m.Content)
		return out, true
	default:
		out := provider.Message{Role: m.Role}
		if s, ok := m.Content.Simple(); ok {
			out.Content = s
		} else {
			out.Parts = parts(m.Content)
		}
		return out, true
	}
}

func parts(c prompt.Content) []provider.Part {
	if c.Blocks == nil {
		return []provider.Part{{Type: "text", Text: c.Str}}
	}
	out := make([]provider.Part, 0, len(c.Blocks))
	for _, b := range c.Blocks {
		switch b.Type {
		case "text":
			out = append(out, provider.Part{Type: "text", Text: b.Text})
		case "image":
			out = append(out, provider.Part{Type: "image", MimeType: b.MimeType, Data: b.Data})
		}
	}
	return out
}

// Request is a recorded request as replayed from a session file: its
// messages, the tools it declared, and the route it went to.
type Request struct {
	Messages []provider.Message
	Tools    []provider.ToolSpec
	Route    string
	API      string
}

// RequestAt replays the k-th request recorded in entries (counting from
// 0). ok is false when there is no such request.
func RequestAt(entries []Entry, k int) (req Request, ok bool) {
	n := 0
	for i, e := range entries {
		if e.Type != TypeRequest {
			continue
		}
		if n == k {
			sys, _ := CurrentSystem(entries[:i])
			return Request{Messages: Messages(History(entries[:i]), nil), Tools: toolSpecs(sys.ToolsAdded), Route: e.Route, API: e.API}, true
		}
		n++
	}
	return Request{}, false
}

// Requests counts the requests recorded in entries.
func Requests(entries []Entry) int {
	n := 0
	for _, e := range entries {
		if e.Type == TypeRequest {
			n++
		}
	}
	return n
}

func toolSpecs(refs []prompt.ToolRef) []provider.ToolSpec {
	out := make([]provider.ToolSpec, 0, len(refs))
	for _, t := range refs {
		out = append(out, provider.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	return out
}

// CurrentSystem replays the structured system messages of entries.
func CurrentSystem(entries []Entry) (prompt.Message, bool) {
	var msgs []prompt.Message
	for _, e := range entries {
		if e.Type == TypeMessage && e.Message != nil && e.Message.Role == "system" {
			msgs = append(msgs, *e.Message)
		}
	}
	return prompt.Replay(msgs)
}

// lastContext returns the text of the latest runtime-context snapshot.
func lastContext(entries []Entry) string {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Type == TypeContext {
			return entries[i].Text
		}
	}
	return ""
}
