package compact

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/session"
)

// imageChars is what an image counts as in the estimate (about 1,200
// tokens), the established harness's figure.
const imageChars = 4800

// units counts a string as JavaScript does (UTF-16 code units), so
// estimates equal the established harness's.
func units(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

func ceilDiv4(chars int) int { return (chars + 3) / 4 }

func contentChars(c prompt.Content) int {
	if c.Blocks == nil {
		return units(c.Str)
	}
	n := 0
	for _, b := range c.Blocks {
		switch b.Type {
		case "text":
			n += units(b.Text)
		case "image":
			n += imageChars
		}
	}
	return n
}

// argsChars is the length of a tool call's arguments written compactly
// (JSON.stringify's form).
func argsChars(raw json.RawMessage) int {
	if len(raw) == 0 {
		return 2
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return utf8.RuneCount(raw)
	}
	return units(b.String())
}

// Estimate is a node's size in tokens, a conservative chars/4: text,
// thinking, tool names and arguments, 4,800 characters per image; a
// summary counts its summary only.
func Estimate(n session.Node) int {
	switch n.Kind {
	case "assistant":
		if n.Msg == nil {
			return ceilDiv4(units(n.Content))
		}
		chars := 0
		for _, b := range n.Msg.Content.Blocks {
			switch b.Type {
			case "text":
				chars += units(b.Text)
			case "thinking":
				chars += units(b.Thinking)
			case "toolCall":
				chars += units(b.Name) + argsChars(b.Arguments)
			}
		}
		if n.Msg.Content.Blocks == nil {
			chars += units(n.Msg.Content.Str)
		}
		return ceilDiv4(chars)
	case "compactionSummary":
		return ceilDiv4(units(n.Content) - units(session.CompactionText("")))
	case "branchSummary":
		return ceilDiv4(units(n.Content) - units(session.BranchSummaryText("")))
	}
	if n.Msg != nil {
		return ceilDiv4(contentChars(n.Msg.Content))
	}
	return ceilDiv4(units(n.Content))
}

func lastUsage(n session.Node) (int, bool) {
	m := n.Msg
	if n.Kind != "assistant" || m == nil || m.Usage == nil || m.StopReason == "aborted" || m.StopReason == "error" {
		return 0, false
	}
	u := m.Usage
	t := u.TotalTokens
	if t == 0 {
		t = u.Input + u.Output + u.CacheRead + u.CacheWrite
	}
	return t, t > 0
}

// ContextTokens is the size of the context branch rebuilds to: the usage
// the last answered request reported plus estimates of what came after
// it. When a compaction or context edit is newer than that answer its
// usage no longer describes the context, and the whole context is
// estimated instead (the prompt once, then every message).
func ContextTokens(branch []session.Entry) int {
	return contextTokens(branch, session.History(branch))
}

// ContextTokensOf is ContextTokens with the branch's history already
// rebuilt (nodes = session.History(branch)), as a transcript keeps it.
func ContextTokensOf(branch []session.Entry, nodes []session.Node) int {
	return contextTokens(branch, nodes)
}

func contextTokens(branch []session.Entry, nodes []session.Node) int {
	last := -1
	usage := 0
	for i := len(nodes) - 1; i >= 0; i-- {
		if t, ok := lastUsage(nodes[i]); ok {
			last, usage = i, t
			break
		}
	}
	if last >= 0 {
		stale := false
		for i := len(branch) - 1; i > nodes[last].Entry; i-- {
			if t := branch[i].Type; t == session.TypeCompaction || t == session.TypeContextEdit {
				stale = true
				break
			}
		}
		if !stale {
			for _, n := range nodes[last+1:] {
				if n.Role != "system" {
					usage += Estimate(n)
				}
			}
			return usage
		}
	}
	total := estimateSystem(branch)
	for _, n := range nodes {
		if n.Role != "system" {
			total += Estimate(n)
		}
	}
	return total
}

// estimateSystem is the size of the prompt as the branch's system
// messages state it (from the latest compaction's copy on): content,
// sections, and the tool declarations as JSON, as they were written
// (fields pi does not know included).
func estimateSystem(branch []session.Entry) int {
	var msgs []prompt.Message
	type tool struct {
		name string
		raw  []byte
	}
	var tools []tool
	drop := func(name string) {
		out := tools[:0]
		for _, t := range tools {
			if t.name != name {
				out = append(out, t)
			}
		}
		tools = out
	}
	apply := func(m *prompt.Message, raw json.RawMessage) {
		msgs = append(msgs, *m)
		for _, t := range m.ToolsRemoved {
			drop(t.Name)
		}
		var list []json.RawMessage
		if len(raw) > 0 {
			var w struct {
				ToolsAdded []json.RawMessage `json:"toolsAdded"`
			}
			if json.Unmarshal(raw, &w) == nil {
				list = w.ToolsAdded
			}
		}
		for i, t := range m.ToolsAdded {
			drop(t.Name)
			var b bytes.Buffer
			if i < len(list) && json.Compact(&b, list[i]) == nil {
				tools = append(tools, tool{t.Name, b.Bytes()})
				continue
			}
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			enc.Encode(t)
			tools = append(tools, tool{t.Name, bytes.TrimSpace(b.Bytes())})
		}
	}
	for _, e := range branch {
		switch {
		case e.Type == session.TypeCompaction && e.SystemMessage != nil:
			msgs, tools = nil, nil
			var w struct {
				SystemMessage json.RawMessage `json:"systemMessage"`
			}
			json.Unmarshal(e.Raw, &w)
			apply(e.SystemMessage, w.SystemMessage)
		case e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == "system":
			var w struct {
				Message json.RawMessage `json:"message"`
			}
			json.Unmarshal(e.Raw, &w)
			apply(e.Message, w.Message)
		}
	}
	sys, ok := prompt.Replay(msgs)
	if !ok {
		return 0
	}
	chars := contentChars(sys.Content)
	for _, s := range sys.Sections {
		if s.Text != nil {
			chars += units(*s.Text)
		}
	}
	if len(tools) > 0 {
		chars += 2 + len(tools) - 1
		for _, t := range tools {
			chars += units(string(t.raw))
		}
	}
	return ceilDiv4(chars)
}
