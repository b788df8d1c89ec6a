package session

import (
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
}

// History replays entries into the request history: user, assistant and
// context messages in order, and system nodes placed and rewritten by
// projection commits. Structured system messages (section patches) add no
// node of their own: they are what projections are computed from.
func History(entries []Entry) []Node {
	var nodes []Node
	seq := 0
	next := func() int { seq++; return seq - 1 }
	for _, e := range entries {
		switch e.Type {
		case TypeMessage:
			if e.Message == nil || e.Message.Role == "system" {
				continue
			}
			nodes = append(nodes, Node{Seq: next(), Role: e.Message.Role, Text: e.Message.Content.Text(), Content: e.Message.Content.Text()})
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
// message with one leading system message holding it.
func Messages(h []Node, forced *string) []provider.Message {
	out := make([]provider.Message, 0, len(h)+1)
	if forced != nil {
		out = append(out, provider.Message{Role: provider.RoleSystem, Content: *forced})
	}
	for _, n := range h {
		if n.Role == "system" && (forced != nil || n.Content == "") {
			continue
		}
		out = append(out, provider.Message{Role: n.Role, Content: n.Content})
	}
	return out
}

// RequestAt replays the messages of the k-th request recorded in entries
// (counting from 0). ok is false when there is no such request.
func RequestAt(entries []Entry, k int) (msgs []provider.Message, route string, ok bool) {
	n := 0
	for i, e := range entries {
		if e.Type != TypeRequest {
			continue
		}
		if n == k {
			return Messages(History(entries[:i]), nil), e.Route, true
		}
		n++
	}
	return nil, "", false
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
