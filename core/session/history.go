package session

import (
	"fmt"
	"strings"
	"time"

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
	// Kind is the message kind as the established harness names it:
	// Role for conversation messages, or "compactionSummary",
	// "branchSummary", "custom" or "bashExecution" for what is sent as a
	// user message with its own wording.
	Kind string `json:"kind,omitempty"`
	// Entry is the index of the entry the node came from in the entries
	// History was given; system nodes point at the entry that last placed
	// them.
	Entry int `json:"-"`
	// Msg is the message a user, assistant or tool-result node stands
	// for (its blocks: images, tool calls); nil for system and context
	// nodes.
	Msg *prompt.Message `json:"-"`
}

// The wording of summaries in the context, the established harness's own
// (a session continued by either harness sends the same text).
const (
	compactionPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	compactionSuffix = "\n</summary>"
	branchPrefix     = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
	branchSuffix     = "</summary>"
)

// CompactionText is a compaction summary as the model reads it.
func CompactionText(summary string) string { return compactionPrefix + summary + compactionSuffix }

// BranchSummaryText is a branch summary as the model reads it.
func BranchSummaryText(summary string) string { return branchPrefix + summary + branchSuffix }

// BashText is a command the user ran (a bashExecution message) as the
// model reads it.
func BashText(m prompt.Message) string {
	var b strings.Builder
	b.WriteString("Ran `" + m.Command + "`\n")
	if m.Output != "" {
		b.WriteString("```\n" + m.Output + "\n```")
	} else {
		b.WriteString("(no output)")
	}
	switch {
	case m.Cancelled:
		b.WriteString("\n\n(command cancelled)")
	case m.ExitCode != nil && *m.ExitCode != 0:
		fmt.Fprintf(&b, "\n\nCommand exited with code %d", *m.ExitCode)
	}
	if m.Truncated && m.FullOutputPath != "" {
		b.WriteString("\n\n[Output truncated. Full output: " + m.FullOutputPath + "]")
	}
	return b.String()
}

// History replays entries (the active branch, root first) into the
// request history, as both harnesses rebuild it:
//
//   - user, assistant and tool-result messages in order; runtime-context
//     snapshots, other extensions' messages, branch summaries and commands
//     the user ran become user messages;
//   - system nodes placed and rewritten by projection commits. Structured
//     system messages (section patches) add no node of their own: they
//     are what projections are computed from;
//   - with a compaction on the branch, the latest one stands for
//     everything before its first kept entry: the system nodes, its
//     summary, then the kept entries and those after it;
//   - context edits leave out or replace the content of the entry they
//     target (the latest edit of an entry wins).
//
// A session written by the established harness has system messages but no
// projections: there the first system message stands for the prompt as
// that harness sent it (the replay of its system messages, or a
// compaction's copy of it), until pi's first projection takes the slot
// over. Labels, session names, model and thinking-level changes and pi's
// own records add nothing.
func History(entries []Entry) []Node {
	nodes, _ := history(entries)
	return nodes
}

// history is History, and the Seq the next node replayed would get.
func history(entries []Entry) ([]Node, int) {
	nodes, seq := replayNodes(entries)
	if c := latestCompaction(entries); c >= 0 {
		nodes = compacted(entries, nodes, c)
	}
	return applyEdits(entries, nodes), seq
}

// replayNodes replays entries into nodes; seq is the next node's Seq.
func replayNodes(entries []Entry) (nodes []Node, seq int) {
	next := func() int { seq++; return seq - 1 }
	var sys []prompt.Message
	head := -1
	projected := false
	setHead := func(i int) {
		cur, _ := prompt.Replay(sys)
		text := prompt.SystemText(cur)
		if head < 0 {
			head = len(nodes)
			nodes = append(nodes, Node{Seq: next(), Role: "system", Kind: "system", Text: text, Content: text, Entry: i})
			return
		}
		nodes[head].Text, nodes[head].Content = text, text
	}
	user := func(i int, kind, text string) {
		nodes = append(nodes, Node{Seq: next(), Role: "user", Kind: kind, Text: text, Content: text, Entry: i})
	}
	for i, e := range entries {
		// Entries the transcript left out of the branch before this one
		// (see Transcript.needed) would have added nodes: their numbers
		// stay taken, as projections refer to nodes by them.
		seq += e.seqGap
		switch e.Type {
		case TypeMessage:
			m := e.Message
			if m == nil {
				continue
			}
			switch m.Role {
			case "system":
				if !foreignSystem(entries, i) {
					continue
				}
				sys = append(sys, *m)
				setHead(i)
			case "bashExecution":
				if !m.ExcludeFromContext {
					user(i, "bashExecution", BashText(*m))
				}
			case "compactionSummary", "branchSummary":
				// Not written as messages by either harness; read as the
				// entries they stand for would be.
				if m.Role == "compactionSummary" {
					user(i, m.Role, CompactionText(m.Summary))
				} else {
					user(i, m.Role, BranchSummaryText(m.Summary))
				}
			case "custom":
				nodes = append(nodes, customNode(next(), i, m.Content))
			default:
				nodes = append(nodes, Node{Seq: next(), Role: m.Role, Kind: m.Role, Text: m.Content.Text(), Content: m.Content.Text(), Entry: i, Msg: m})
			}
		case TypeContext:
			user(i, "custom", e.Text)
		case TypeCustomMessage:
			var c prompt.Content
			if e.Content != nil {
				c = *e.Content
			}
			nodes = append(nodes, customNode(next(), i, c))
		case TypeBranchSummary:
			if e.Summary != "" {
				user(i, "branchSummary", BranchSummaryText(e.Summary))
			}
		case TypeCompaction:
			if e.SystemMessage != nil && !projected {
				// The other harness's prompt as it stood when it
				// compacted: the replay of everything before.
				sys = []prompt.Message{*e.SystemMessage}
				setHead(i)
			}
			user(i, "compactionSummary", CompactionText(e.Summary))
		case TypeProjection:
			projected = true
			for _, c := range e.Commits {
				content := c.Text
				if c.Content != nil {
					content = *c.Content
				}
				n := Node{Seq: next(), Role: "system", Kind: "system", Text: c.Text, Content: content, Entry: i}
				switch c.Op {
				case prompt.OpAppend:
					nodes = append(nodes, n)
				case prompt.OpReplace:
					for j := range nodes {
						if nodes[j].Seq == c.Seq {
							nodes[j] = n
						}
					}
				}
			}
		}
	}
	return nodes, seq
}

// customNode is an extension's message: a user message with its content
// (text, or blocks with images).
func customNode(seq, i int, c prompt.Content) Node {
	n := Node{Seq: seq, Role: "user", Kind: "custom", Text: c.Text(), Content: c.Text(), Entry: i}
	if _, simple := c.Simple(); !simple {
		n.Msg = &prompt.Message{Role: "user", Content: c}
	}
	return n
}

// latestCompaction is the index of the last compaction entry, or -1.
func latestCompaction(entries []Entry) int {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Type == TypeCompaction {
			return i
		}
	}
	return -1
}

// compacted is the history after the compaction at entries[c]: the system
// nodes (the prompt stays as it was, so a provider's cache keeps its
// prefix), the compaction's summary, the nodes of the entries from its
// first kept entry on (older compactions among them add nothing), and
// those after it. A first kept entry that is not on the branch keeps
// nothing from before the compaction, as the established harness does.
//
// Every system node that stands before the first message kept leads, even
// one placed (or last rewritten) after the compaction: the prompt pi
// records when it continues a compacted session, or a prompt changed since,
// must not follow the summary. Servers whose chat template wants the system
// message first refuse such a request, and the established harness sends
// its prompt first.
func compacted(entries []Entry, nodes []Node, c int) []Node {
	kept := c
	for i := 0; i < c; i++ {
		if entries[i].ID != "" && entries[i].ID == entries[c].FirstKeptEntryID {
			kept = i
			break
		}
	}
	keeps := func(n Node) bool {
		return (n.Entry >= kept && n.Entry < c && n.Kind != "compactionSummary") || n.Entry > c
	}
	first := len(nodes)
	for i, n := range nodes {
		if n.Role != "system" && keeps(n) {
			first = i
			break
		}
	}
	leads := func(i int, n Node) bool {
		return n.Role == "system" && (n.Entry < kept || (i < first && keeps(n)))
	}
	out := make([]Node, 0, len(nodes))
	for i, n := range nodes {
		if leads(i, n) {
			out = append(out, n)
		}
	}
	for _, n := range nodes {
		if n.Entry == c && n.Role != "system" {
			out = append(out, n)
		}
	}
	for i, n := range nodes {
		if keeps(n) && !leads(i, n) {
			out = append(out, n)
		}
	}
	return out
}

// applyEdits applies context_edit entries: the latest edit of an entry
// leaves its nodes out (no replacement) or replaces their content.
func applyEdits(entries []Entry, nodes []Node) []Node {
	var edits map[string]*Entry
	for i := range entries {
		if e := &entries[i]; e.Type == TypeContextEdit && e.TargetID != "" {
			if edits == nil {
				edits = map[string]*Entry{}
			}
			edits[e.TargetID] = e
		}
	}
	if edits == nil {
		return nodes
	}
	out := nodes[:0:0]
	for _, n := range nodes {
		id := ""
		if n.Entry >= 0 && n.Entry < len(entries) {
			id = entries[n.Entry].ID
		}
		ed, ok := edits[id]
		if !ok || id == "" || n.Role == "system" {
			out = append(out, n)
			continue
		}
		if ed.Replacement == nil {
			continue
		}
		c := *ed.Replacement
		n.Text, n.Content = c.Text(), c.Text()
		if n.Msg != nil {
			m := *n.Msg
			m.Content = c
			if c.Blocks == nil && (m.Role == "assistant" || m.Role == prompt.RoleToolResult) {
				m.Content = prompt.Content{Blocks: []prompt.Block{{Type: "text", Text: c.Str}}}
			}
			n.Msg = &m
		} else if _, simple := c.Simple(); !simple {
			n.Msg = &prompt.Message{Role: "user", Content: c}
		}
		out = append(out, n)
	}
	return out
}

// foreignSystem reports whether the system message at entries[i] was
// written by another harness: pi follows each of its system messages with
// a projection before the conversation goes on, so one followed by a
// conversation message first is not pi's. One at the end is pi's, about to
// be projected.
func foreignSystem(entries []Entry, i int) bool {
	foreign, _ := systemVerdict(entries, i)
	return foreign
}

// systemVerdict is foreignSystem's answer, and whether an entry after i
// decided it (a system message with nothing deciding after it counts as
// pi's, until something does).
func systemVerdict(entries []Entry, i int) (foreign, decided bool) {
	for _, e := range entries[i+1:] {
		switch e.Type {
		case TypeProjection:
			return false, true
		case TypeContext:
			return true, true
		case TypeMessage:
			if e.Message != nil && e.Message.Role != "system" {
				return true, true
			}
		}
	}
	return false, false
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
			out = append(out, nodeMessage(n))
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
	case "user":
		// A user message's shape is kept as recorded: a string stays a
		// string, a list of blocks (what a prompt is) stays a list even
		// with one text block, as the established harness sends it.
		out := provider.Message{Role: m.Role}
		if m.Content.Blocks == nil {
			out.Content = m.Content.Str
		} else {
			out.Parts = parts(m.Content)
		}
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

// nodeMessage is a node without a recorded message as a provider message.
// The user messages among them (summaries, command output, extension
// messages) go as one text block, the shape the established harness gives
// every user message it makes itself.
func nodeMessage(n Node) provider.Message {
	if n.Role == "user" {
		return provider.Message{Role: n.Role, Parts: []provider.Part{{Type: "text", Text: n.Content}}}
	}
	return provider.Message{Role: n.Role, Content: n.Content}
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

// lastContext returns the text of the latest runtime-context snapshot
// still in the context (one a compaction summarised away does not count,
// so the next turn states the context again); h is History(entries).
func lastContext(entries []Entry, h []Node) string {
	for i := len(h) - 1; i >= 0; i-- {
		if n := h[i].Entry; n >= 0 && n < len(entries) && entries[n].Type == TypeContext {
			return entries[n].Text
		}
	}
	return ""
}

// ContextMessages are the messages of the context History rebuilds from
// entries, in the established harness's shapes (what RPC get_messages
// returns): conversation messages as recorded (edits applied), summaries
// as "compactionSummary" and "branchSummary" messages, extensions'
// messages as "custom" ones. pi's system prompt is not among them.
func ContextMessages(entries []Entry) []prompt.Message {
	out, _ := contextMessages(entries)
	return out
}

// AgentMessages is ContextMessages with the recorded system messages where
// the established harness's agent holds them (its RPC get_messages answers
// with these): in place on the branch; after a compaction the prompt the
// compaction recorded before its summary, none of the kept entries' system
// messages, and those recorded after the compaction in place.
func AgentMessages(entries []Entry) []prompt.Message {
	msgs, at := contextMessages(entries)
	c := latestCompaction(entries)
	var sys []int // system message entries still to place, in order
	for i, e := range entries {
		if e.Type == TypeMessage && e.Message != nil && e.Message.Role == "system" && i > c {
			sys = append(sys, i)
		}
	}
	out := make([]prompt.Message, 0, len(msgs)+len(sys)+1)
	placeBefore := func(i int) {
		for len(sys) > 0 && sys[0] < i {
			m := *entries[sys[0]].Message
			out = append(out, m)
			sys = sys[1:]
		}
	}
	for k, m := range msgs {
		switch {
		case c >= 0 && at[k] == c:
			if sm := entries[c].SystemMessage; sm != nil {
				out = append(out, *sm)
			}
		case c < 0 || at[k] > c:
			placeBefore(at[k])
		}
		out = append(out, m)
	}
	placeBefore(len(entries))
	return out
}

// contextMessages is ContextMessages with the index of the entry each
// message came from.
func contextMessages(entries []Entry) (out []prompt.Message, at []int) {
	prev := -1 // the entry of the node before: its messages get its index
	for _, n := range History(entries) {
		for len(at) < len(out) {
			at = append(at, prev)
		}
		if n.Role == "system" || n.Entry < 0 || n.Entry >= len(entries) {
			continue
		}
		prev = n.Entry
		e := entries[n.Entry]
		ts := entryMillis(e)
		switch n.Kind {
		case "compactionSummary", "branchSummary":
			if e.Type == TypeMessage && e.Message != nil {
				out = append(out, *e.Message)
				continue
			}
			out = append(out, prompt.Message{Role: n.Kind, Summary: e.Summary, TokensBefore: e.TokensBefore, FromID: e.FromID, Timestamp: ts})
		case "custom":
			switch {
			case e.Type == TypeMessage && e.Message != nil:
				out = append(out, *e.Message)
			case e.Type == TypeContext:
				// pi's runtime context is prompt state, not conversation.
			default:
				display := e.Display
				c := prompt.TextContent(n.Content)
				if n.Msg != nil {
					c = n.Msg.Content
				} else if e.Content != nil && e.Content.Blocks != nil {
					c = prompt.Content{Blocks: []prompt.Block{{Type: "text", Text: n.Content}}}
				}
				out = append(out, prompt.Message{Role: "custom", CustomType: e.CustomType, Content: c, Display: &display, Timestamp: ts})
			}
		default:
			if n.Msg != nil {
				out = append(out, *n.Msg)
			} else if e.Message != nil {
				out = append(out, *e.Message)
			}
		}
	}
	for len(at) < len(out) {
		at = append(at, prev)
	}
	return out, at
}

// entryMillis is an entry's timestamp in Unix milliseconds (0 when it has
// none that parses).
func entryMillis(e Entry) int64 {
	t, err := time.Parse(time.RFC3339Nano, e.Time)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}
