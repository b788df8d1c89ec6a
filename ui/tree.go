package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/runtime"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/termtext"
	"github.com/piwasm/pi/ui/render"
)

// The session tree in the interactive session: /tree (a navigator over
// every entry of the session, as the established harness draws it), /fork
// (a picker of user messages), /clone and /name.

// Tree filters, in the order ctrl+o cycles through them.
var treeFilters = []string{"default", "no-tools", "user-only", "labeled-only", "all"}

// treeRow is one entry of the flattened tree: lead is the connector
// drawn before it, base what its descendants inherit.
type treeRow struct {
	node       *session.TreeNode
	lead, base string
}

// picker is a scrolling list to choose from: the /tree navigator, or the
// /fork picker (flat).
type picker struct {
	title  string
	rows   []treeRow
	active map[string]bool
	leaf   string
	filter string
	search string
	folded map[string]bool
	times  bool
	// flat: the /fork picker (no filters, folds or labels).
	flat    bool
	visible []int
	sel     int
	// toolCalls name the calls of assistant messages, for their results.
	toolCalls map[string]prompt.Block
	choose    func(m *Model, id string) tea.Cmd
	label     func(m *Model, id, current string) tea.Cmd
}

// input is a one-line question (a label, custom instructions).
type input struct {
	title string
	text  []rune
	done  func(m *Model, text string, ok bool) tea.Cmd
}

// navigatedMsg ends a move in the tree.
type navigatedMsg struct {
	target string
	res    runtime.NavigateResult
	err    error
	// restored is the text of messages queued for the run the move
	// stopped, given back to the editor.
	restored []string
}

func newTreePicker(tr *session.Transcript, selected string) *picker {
	p := &picker{title: "Session tree", leaf: tr.LeafID(), filter: "default", folded: map[string]bool{}, active: map[string]bool{}, toolCalls: map[string]prompt.Block{}}
	for _, e := range tr.PathTo(p.leaf) {
		p.active[e.ID] = true
	}
	contains := map[*session.TreeNode]bool{}
	var mark func(n *session.TreeNode) bool
	mark = func(n *session.TreeNode) bool {
		has := n.Entry.ID == p.leaf
		for _, c := range n.Children {
			if mark(c) {
				has = true
			}
		}
		contains[n] = has
		return has
	}
	roots := tr.Tree()
	for _, r := range roots {
		mark(r)
	}
	// Depth first, the branch holding the leaf first at every fork.
	type frame struct {
		n          *session.TreeNode
		lead, base string
	}
	ordered := func(list []*session.TreeNode) []*session.TreeNode {
		var first, rest []*session.TreeNode
		for _, c := range list {
			if contains[c] {
				first = append(first, c)
			} else {
				rest = append(rest, c)
			}
		}
		return append(first, rest...)
	}
	var stack []frame
	rs := ordered(roots)
	for i := len(rs) - 1; i >= 0; i-- {
		stack = append(stack, frame{n: rs[i]})
	}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		p.rows = append(p.rows, treeRow{node: f.n, lead: f.lead, base: f.base})
		if msg := f.n.Entry.Message; f.n.Entry.Type == session.TypeMessage && msg.Role == "assistant" {
			for _, b := range msg.Content.Blocks {
				if b.Type == "toolCall" {
					p.toolCalls[b.ID] = b
				}
			}
		}
		kids := ordered(f.n.Children)
		for i := len(kids) - 1; i >= 0; i-- {
			if len(kids) == 1 {
				stack = append(stack, frame{n: kids[i], lead: f.base, base: f.base})
				continue
			}
			lead, base := "├─ ", "│  "
			if i == len(kids)-1 {
				lead, base = "└─ ", "   "
			}
			stack = append(stack, frame{n: kids[i], lead: f.base + lead, base: f.base + base})
		}
	}
	if selected == "" {
		selected = p.leaf
	}
	p.apply(selected)
	return p
}

// hiddenByDefault are the bookkeeping entries the default view leaves out.
func hiddenByDefault(e session.Entry) bool {
	switch e.Type {
	case session.TypeMessage:
		return e.Message.Role == "system"
	case session.TypeCustomMessage, session.TypeCompaction, session.TypeBranchSummary, session.TypeContext:
		return false
	}
	return true
}

// shows reports whether the filter and search let row i through.
func (p *picker) shows(r treeRow) bool {
	e := r.node.Entry
	if p.flat {
		return p.matches(r)
	}
	if e.Type == "usage" {
		return false
	}
	if e.Type == session.TypeMessage && e.Message.Role == "assistant" && e.ID != p.leaf {
		m := e.Message
		if strings.TrimSpace(m.Content.Text()) == "" && (m.StopReason == "" || m.StopReason == "stop" || m.StopReason == "toolUse") {
			return false
		}
	}
	ok := true
	switch p.filter {
	case "user-only":
		ok = e.Type == session.TypeMessage && e.Message.Role == "user"
	case "no-tools":
		ok = !hiddenByDefault(e) && !(e.Type == session.TypeMessage && e.Message.Role == prompt.RoleToolResult)
	case "labeled-only":
		ok = r.node.Label != ""
	case "all":
	default:
		ok = !hiddenByDefault(e)
	}
	return ok && p.matches(r)
}

func (p *picker) matches(r treeRow) bool {
	text := strings.ToLower(p.text(r) + " " + r.node.Label)
	for _, tok := range strings.Fields(strings.ToLower(p.search)) {
		if !strings.Contains(text, tok) {
			return false
		}
	}
	return true
}

// apply recomputes the visible rows and keeps the selection on id (or the
// nearest visible entry above it).
func (p *picker) apply(id string) {
	p.visible = p.visible[:0]
	hidden := map[string]bool{}
	for i, r := range p.rows {
		e := r.node.Entry
		if hidden[e.ParentID] || p.folded[e.ParentID] {
			hidden[e.ID] = true
			continue
		}
		if p.shows(r) {
			p.visible = append(p.visible, i)
		}
	}
	p.sel = max(0, len(p.visible)-1)
	// One pass each way: a long session is thousands of entries.
	pos := make(map[string]int, len(p.visible))
	for vi, i := range p.visible {
		pos[p.rows[i].node.Entry.ID] = vi
	}
	parent := make(map[string]string, len(p.rows))
	for _, r := range p.rows {
		parent[r.node.Entry.ID] = r.node.Entry.ParentID
	}
	seen := map[string]bool{}
	for want := id; want != "" && !seen[want]; want = parent[want] {
		seen[want] = true
		if vi, ok := pos[want]; ok {
			p.sel = vi
			return
		}
	}
}

func (p *picker) selected() (treeRow, bool) {
	if len(p.visible) == 0 {
		return treeRow{}, false
	}
	return p.rows[p.visible[p.sel]], true
}

// text is what a row says about its entry.
func (p *picker) text(r treeRow) string {
	e := r.node.Entry
	one := func(s string) string { return strings.TrimSpace(strings.NewReplacer("\n", " ", "\t", " ").Replace(s)) }
	switch e.Type {
	case session.TypeMessage:
		m := e.Message
		switch m.Role {
		case "user":
			if p.flat {
				return one(m.Content.Text())
			}
			return "user: " + one(m.Content.Text())
		case "assistant":
			switch t := one(m.Content.Text()); {
			case t != "":
				return "assistant: " + t
			case m.StopReason == "aborted":
				return "assistant: (aborted)"
			case m.ErrorMessage != "":
				return "assistant: " + one(m.ErrorMessage)
			}
			return "assistant: (no content)"
		case prompt.RoleToolResult:
			if c, ok := p.toolCalls[m.ToolCallID]; ok {
				return "[" + c.Name + "] " + one(string(c.Arguments))
			}
			return "[" + m.ToolName + "]"
		}
		return "[" + m.Role + "]"
	case session.TypeCustomMessage:
		text := ""
		if e.Content != nil {
			text = e.Content.Text()
		}
		return "[" + e.CustomType + "]: " + one(text)
	case session.TypeContext:
		return "[context]: " + one(e.Text)
	case session.TypeCompaction:
		return fmt.Sprintf("[compaction: %dk tokens]", (e.TokensBefore+500)/1000)
	case session.TypeBranchSummary:
		return "[branch summary]: " + one(e.Summary)
	case session.TypeModelChange:
		return "[model: " + e.ModelID + "]"
	case session.TypeThinkingChange:
		return "[thinking: " + e.ThinkingLevel + "]"
	case session.TypeLabel:
		if e.Label == "" {
			return "[label: (cleared)]"
		}
		return "[label: " + e.Label + "]"
	case session.TypeSessionInfo:
		if e.Name == "" {
			return "[title: empty]"
		}
		return "[title: " + e.Name + "]"
	case session.TypeContextEdit:
		return "[context edit: " + e.TargetID + "]"
	}
	return "[" + e.Type + "]"
}

func (p *picker) view(width, height int, m *Model) string {
	st := m.st
	var b strings.Builder
	title := p.title
	if !p.flat {
		title += " · " + p.filter
	}
	if p.search != "" {
		title += " · search: " + p.search
	}
	b.WriteString(st.Accent.Render("┃ ") + st.Title.Render(termtext.Escape(title)))
	rows := max(3, min(height/2, 20))
	if len(p.visible) == 0 {
		b.WriteString("\n" + st.Accent.Render("┃ ") + st.Dim.Render("  No entries found"))
	}
	start := max(0, min(p.sel-rows/2, len(p.visible)-rows))
	end := min(start+rows, len(p.visible))
	for vi := start; vi < end; vi++ {
		r := p.rows[p.visible[vi]]
		e := r.node.Entry
		cursor := "  "
		if vi == p.sel {
			cursor = "› "
		}
		line := cursor + r.lead
		if p.folded[e.ID] {
			line += "⊞ "
		}
		if p.active[e.ID] && !p.flat {
			line += "• "
		}
		if r.node.Label != "" {
			line += "[" + r.node.Label + "] "
			if p.times {
				if t, err := time.Parse(time.RFC3339Nano, r.node.LabelAt); err == nil {
					line += t.Local().Format("15:04") + " "
				}
			}
		}
		line = truncateTo(termtext.Escape(line+p.text(r)), width-2)
		if vi == p.sel {
			line = st.Title.Render(line)
		}
		b.WriteString("\n" + st.Accent.Render("┃ ") + line)
	}
	help := "enter selects · esc cancels · type to search"
	if !p.flat {
		help = fmt.Sprintf("(%d/%d) enter goes there · esc cancels · type to search · ctrl+u/t/l/a/d filters, ctrl+o cycles · shift+l labels · shift+t label times · ctrl+←/→ fold", min(p.sel+1, len(p.visible)), len(p.visible))
	}
	b.WriteString("\n" + st.Accent.Render("┃ ") + st.Dim.Render(truncateTo(help, width-2)))
	return b.String()
}

// pickerKey handles a key while a picker is open.
func (m *Model) pickerKey(k tea.KeyPressMsg) tea.Cmd {
	p := m.picker
	s := m.selectKey(k)
	cur := ""
	if r, ok := p.selected(); ok {
		cur = r.node.Entry.ID
	}
	page := max(3, min(m.height/2, 20))
	switch s {
	case "up":
		if n := len(p.visible); n > 0 {
			p.sel = (p.sel + n - 1) % n
		}
	case "down":
		if n := len(p.visible); n > 0 {
			p.sel = (p.sel + 1) % n
		}
	case "pgup", "left":
		p.sel = max(0, p.sel-page)
	case "pgdown", "right":
		p.sel = max(0, min(len(p.visible)-1, p.sel+page))
	case "enter":
		if cur == "" {
			return nil
		}
		m.picker = nil
		return p.choose(m, cur)
	case "esc":
		if p.search != "" {
			p.search = ""
			p.apply(cur)
			return nil
		}
		m.picker = nil
		return nil
	case "backspace":
		if r := []rune(p.search); len(r) > 0 {
			p.search = string(r[:len(r)-1])
			p.apply(cur)
		}
	default:
		if !p.flat && m.treeKey(k, cur) {
			return nil
		}
		if m.is(k, "app.tree.editLabel") && !p.flat && cur != "" && p.label != nil {
			r, _ := p.selected()
			return p.label(m, cur, r.node.Label)
		}
		if s == "space" {
			s = " "
		}
		if r := []rune(s); len(r) == 1 && r[0] >= ' ' {
			p.search += s
			p.folded = map[string]bool{}
			p.apply(cur)
		}
	}
	return nil
}

// treeKey handles the navigator's own keys: filters, folds, label times.
func (m *Model) treeKey(k tea.KeyPressMsg, cur string) bool {
	p := m.picker
	setFilter := func(f string) {
		if p.filter == f {
			f = "default"
		}
		p.filter = f
		p.apply(cur)
	}
	cycle := func(step int) {
		i := 0
		for n, f := range treeFilters {
			if f == p.filter {
				i = n
			}
		}
		p.filter = treeFilters[(i+step)%len(treeFilters)]
		p.apply(cur)
	}
	switch {
	case m.is(k, "app.tree.filter.default"):
		p.filter = "default"
		p.apply(cur)
	case m.is(k, "app.tree.filter.noTools"):
		setFilter("no-tools")
	case m.is(k, "app.tree.filter.userOnly"):
		setFilter("user-only")
	case m.is(k, "app.tree.filter.labeledOnly"):
		setFilter("labeled-only")
	case m.is(k, "app.tree.filter.all"):
		setFilter("all")
	case m.is(k, "app.tree.filter.cycleForward"):
		cycle(1)
	case m.is(k, "app.tree.filter.cycleBackward"):
		cycle(len(treeFilters) - 1)
	case m.is(k, "app.tree.foldOrUp"):
		if cur != "" {
			p.folded[cur] = true
			p.apply(cur)
		}
	case m.is(k, "app.tree.unfoldOrDown"):
		delete(p.folded, cur)
		p.apply(cur)
	case m.is(k, "app.tree.toggleLabelTimestamp"):
		p.times = !p.times
	default:
		return false
	}
	return true
}

// inputKey handles a key while a one-line question is open.
func (m *Model) inputKey(k tea.KeyPressMsg) tea.Cmd {
	in := m.input
	s := m.selectKey(k)
	switch s {
	case "enter":
		m.input = nil
		return in.done(m, strings.TrimSpace(string(in.text)), true)
	case "esc":
		m.input = nil
		return in.done(m, "", false)
	case "backspace":
		if len(in.text) > 0 {
			in.text = in.text[:len(in.text)-1]
		}
	case "space":
		in.text = append(in.text, ' ')
	default:
		if r := []rune(s); len(r) == 1 && r[0] >= ' ' {
			in.text = append(in.text, r[0])
		}
	}
	return nil
}

func (in *input) view(width int, m *Model) string {
	return m.st.Accent.Render("┃ ") + m.st.Title.Render(termtext.Escape(in.title)) + "\n" +
		m.st.Accent.Render("┃ ") + truncateTo(termtext.Escape("> "+string(in.text)), width-2) + "█\n" +
		m.st.Accent.Render("┃ ") + m.st.Dim.Render("enter saves · esc cancels")
}

// cmdTree opens the navigator (/tree, or esc twice on an empty editor).
// It opens while the agent works too: the run is stopped only once a move
// is chosen, as the established harness does.
func (m *Model) cmdTree(string) tea.Cmd {
	return m.openTree("")
}

func (m *Model) openTree(selected string) tea.Cmd {
	tr := m.rt.Transcript()
	if tr.Branches() == 0 { // no entry with an id: nothing to show (read from the index alone)
		m.addNotice("No entries in session")
		return m.flush()
	}
	p := newTreePicker(tr, selected)
	for _, f := range treeFilters {
		if f == m.host.TreeFilter {
			p.filter = f
			p.apply(selected)
		}
	}
	p.choose = (*Model).treeChosen
	p.label = (*Model).editLabel
	m.picker = p
	return nil
}

// editLabel asks for the label of entry id (empty clears it).
func (m *Model) editLabel(id, current string) tea.Cmd {
	m.input = &input{title: "Label for this entry (empty clears it)", text: []rune(current), done: func(m *Model, text string, ok bool) tea.Cmd {
		if ok {
			if err := m.rt.Edit(func(tr *session.Transcript) error { return tr.SetLabel(id, text) }); err != nil {
				m.addNotice("✗ label: " + err.Error())
			}
		}
		return m.openTree(id)
	}}
	return nil
}

// treeChosen goes to the chosen entry, asking first whether to summarise
// the branch left (unless branchSummary.skipPrompt).
func (m *Model) treeChosen(id string) tea.Cmd {
	if id == m.rt.Transcript().LeafID() {
		m.addNotice("Already at this point")
		return m.flush()
	}
	if m.host.SkipSummaryPrompt || m.host.Summarizer == nil {
		return m.navigate(id, false, "")
	}
	m.dialog = &dialog{title: "Summarize branch?", options: []option{{label: "No summary"}, {label: "Summarize"}, {label: "Summarize with custom prompt"}},
		choose: func(m *Model, i int) tea.Cmd {
			switch i {
			case -1:
				return m.openTree(id)
			case 0:
				return m.navigate(id, false, "")
			case 1:
				return m.navigate(id, true, "")
			}
			m.input = &input{title: "Custom summarization instructions", done: func(m *Model, text string, ok bool) tea.Cmd {
				if !ok {
					return m.treeChosen(id)
				}
				return m.navigate(id, true, text)
			}}
			return nil
		}}
	return nil
}

// navigate moves the session; a summary is written off the UI's loop and
// esc cancels it. A run in progress is stopped first (the person has
// committed to the move), its queued messages going back to the editor;
// a compaction in progress is waited for by no one: the move is refused.
func (m *Model) navigate(id string, summarize bool, instructions string) tea.Cmd {
	ctx, cancel := context.WithCancel(context.Background())
	m.navCancel = cancel
	if summarize {
		m.notice = "summarizing the branch… (esc cancels)"
	}
	rt, sum := m.rt, m.host.Summarizer
	return func() tea.Msg {
		defer cancel()
		var restored []string
		if st := rt.State(); st.Running && !st.Compacting {
			steering, followUp := rt.Abort()
			restored = append(steering, followUp...)
		}
		if rt.State().Compacting {
			return navigatedMsg{target: id, restored: restored, err: errors.New("Wait for the current compaction or tree navigation to finish before navigating the session tree.")}
		}
		res, err := rt.Navigate(ctx, id, runtime.NavigateOptions{Summarize: summarize, Summarizer: sum, Instructions: instructions})
		if ctx.Err() != nil && err != nil {
			err = context.Canceled
		}
		return navigatedMsg{target: id, res: res, err: err, restored: restored}
	}
}

func (m *Model) navigated(msg navigatedMsg) tea.Cmd {
	m.navCancel = nil
	m.notice = ""
	m.working = m.rt.State().Running
	if len(msg.restored) > 0 && strings.TrimSpace(m.editor.Value()) == "" {
		m.editor.SetValue(strings.Join(msg.restored, "\n"))
		m.resizeEditor()
	}
	switch {
	case errors.Is(msg.err, context.Canceled):
		m.addNotice("Branch summarization cancelled")
		return tea.Batch(m.flush(), m.openTree(msg.target))
	case msg.err != nil:
		m.addNotice("✗ " + msg.err.Error())
		return m.flush()
	}
	m.addNotice("── navigated in the session tree; the conversation now reads:")
	m.showHistory(m.rt.Messages())
	if msg.res.Summary != nil {
		summary := msg.res.Summary.Summary
		m.addBlock(func(w int, expanded bool) string {
			if !expanded {
				return render.Notice("branch summary written · ctrl+o shows it", w, m.st)
			}
			return render.Notice("branch summary:\n\n"+summary, w, m.st)
		})
		m.summaryBilled(true, msg.res.Summary.Usage)
	}
	if msg.res.EditorText != "" && strings.TrimSpace(m.editor.Value()) == "" {
		m.editor.SetValue(msg.res.EditorText)
		m.resizeEditor()
	}
	m.addNotice("Navigated to selected point")
	return m.flush()
}

// cmdFork picks one of the session's user messages and continues in a new
// session from just before it, with its text in the editor.
func (m *Model) cmdFork(string) tea.Cmd {
	if !m.idle("/fork") {
		return m.flush()
	}
	msgs := m.rt.Transcript().ForkMessages()
	if len(msgs) == 0 {
		m.addNotice("No messages to fork from")
		return m.flush()
	}
	p := &picker{title: "Fork from which message?", flat: true, folded: map[string]bool{}}
	for _, fm := range msgs {
		e := session.Entry{Type: session.TypeMessage, ID: fm.EntryID, Message: &prompt.Message{Role: "user", Content: prompt.TextContent(fm.Text)}}
		p.rows = append(p.rows, treeRow{node: &session.TreeNode{Entry: e}})
	}
	p.apply(msgs[len(msgs)-1].EntryID)
	p.choose = func(m *Model, id string) tea.Cmd {
		text, err := m.rt.Fork(id, false)
		if err != nil {
			m.addNotice("✗ fork: " + err.Error())
			return m.flush()
		}
		m.afterSwitch("Forked to new session")
		m.editor.SetValue(text)
		m.resizeEditor()
		return m.flush()
	}
	m.picker = p
	return nil
}

// cmdClone continues in a copy of the session's active branch.
func (m *Model) cmdClone(string) tea.Cmd {
	if !m.idle("/clone") {
		return m.flush()
	}
	leaf := m.rt.Transcript().LeafID()
	if leaf == "" {
		m.addNotice("Nothing to clone yet")
		return m.flush()
	}
	if _, err := m.rt.Fork(leaf, true); err != nil {
		m.addNotice("✗ clone: " + err.Error())
		return m.flush()
	}
	m.afterSwitch("Cloned to new session")
	m.editor.Reset()
	m.resizeEditor()
	return m.flush()
}

func (m *Model) afterSwitch(what string) {
	st := m.rt.State()
	where := st.SessionFile
	if where == "" {
		where = "in memory"
	}
	m.addNotice(what + ": " + where)
	m.showHistory(m.rt.Messages())
}

// cmdName shows or sets the session's display name.
func (m *Model) cmdName(args string) tea.Cmd {
	name := strings.TrimSpace(args)
	tr := m.rt.Transcript()
	if name == "" {
		if cur := tr.Name(); cur != "" {
			m.addNotice("Session name: " + cur)
		} else {
			m.addNotice("Usage: /name <name>")
		}
		return m.flush()
	}
	var stored string
	err := m.rt.Edit(func(tr *session.Transcript) error {
		if err := tr.SetName(name); err != nil {
			return err
		}
		stored = tr.Name()
		return nil
	})
	if err != nil {
		m.addNotice("✗ /name: " + err.Error())
		return m.flush()
	}
	if stored != name {
		m.addNotice(fmt.Sprintf("Session name was normalized from %q to %q", name, stored))
	}
	m.addNotice("Session name set: " + stored)
	return m.flush()
}

// doubleEscape opens /tree (or /fork, per doubleEscapeAction) on the
// second esc within half a second on an empty editor.
func (m *Model) doubleEscape() tea.Cmd {
	action := m.host.DoubleEscape
	if action == "" {
		action = "tree"
	}
	if action == "none" || strings.TrimSpace(m.editor.Value()) != "" {
		return nil
	}
	if m.lastEsc.IsZero() || time.Since(m.lastEsc) > 500*time.Millisecond {
		m.lastEsc = time.Now()
		return nil
	}
	m.lastEsc = time.Time{}
	if action == "fork" {
		return m.cmdFork("")
	}
	return m.cmdTree("")
}
