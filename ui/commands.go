package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/piwasm/pi/core/permission"
	"github.com/piwasm/pi/core/termtext"
	"github.com/piwasm/pi/host"
	"github.com/piwasm/pi/ui/render"
)

func (m *Model) cmdHelp(string) tea.Cmd {
	m.addNotice(helpText())
	return m.flush()
}

func (m *Model) cmdQuit(string) tea.Cmd { return m.quit() }

func (m *Model) cmdSession(string) tea.Cmd {
	st := m.rt.State()
	path := st.SessionFile
	if path == "" {
		path = "(not saved: --no-session)"
	}
	if m.working {
		// The transcript grows while the agent works: counts wait.
		m.addNotice(fmt.Sprintf("session %s\n%s\n%d messages (counts and tokens when the agent is idle)", st.SessionID, path, st.MessageCount))
		return m.flush()
	}
	tr := m.rt.Transcript()
	s := tr.Stats()
	var b strings.Builder
	if name := tr.Name(); name != "" {
		fmt.Fprintf(&b, "name     %s\n", name)
	}
	fmt.Fprintf(&b, "file     %s\nid       %s\n", path, st.SessionID)
	fmt.Fprintf(&b, "messages %d: %d from you, %d replies, %d tool calls, %d results\n", s.TotalMessages, s.UserMessages, s.AssistantMessages, s.ToolCalls, s.ToolResults)
	prompt := s.Tokens.Input + s.Tokens.CacheRead + s.Tokens.CacheWrite
	fmt.Fprintf(&b, "tokens   %d in", prompt)
	if prompt > 0 && s.Tokens.CacheRead+s.Tokens.CacheWrite > 0 {
		fmt.Fprintf(&b, " (%.1f%% from the cache, %d written to it)", float64(s.Tokens.CacheRead)*100/float64(prompt), s.Tokens.CacheWrite)
	}
	fmt.Fprintf(&b, ", %d out", s.Tokens.Output)
	if s.Cost > 0 {
		fmt.Fprintf(&b, "\ncost     $%.3f", s.Cost)
	}
	b.WriteString(m.cacheSummary(tr))
	m.addNotice(b.String())
	return m.flush()
}

func (m *Model) cmdNew(string) tea.Cmd {
	if m.host.NewSession == nil {
		return m.unavailable("/new")
	}
	if !m.idle("/new") {
		return m.flush()
	}
	if err := m.host.NewSession(); err != nil {
		m.addNotice("✗ " + err.Error())
	} else {
		m.addNotice("new session: " + m.rt.State().SessionFile)
	}
	return m.flush()
}

func (m *Model) cmdResume(string) tea.Cmd {
	h := m.host
	if h.Sessions == nil || h.OpenSession == nil {
		return m.unavailable("/resume")
	}
	if !m.idle("/resume") {
		return m.flush()
	}
	m.openSessionPicker()
	return nil
}

func (m *Model) cmdModel(args string) tea.Cmd {
	h := m.host
	if h.SetModel == nil {
		return m.unavailable("/model")
	}
	if args != "" {
		return m.setModel(args)
	}
	if h.Models == nil {
		return m.unavailable("the model list")
	}
	list, err := h.Models()
	if err != nil || len(list) == 0 {
		m.addNotice(fmt.Sprintf("no models configured %v", errText(err)))
		return m.flush()
	}
	m.dialog = modelDialog(list)
	return nil
}

func (m *Model) cmdReload(string) tea.Cmd {
	if m.host.Reload == nil {
		return m.unavailable("/reload")
	}
	if !m.idle("/reload") {
		return m.flush()
	}
	changes, err := m.host.Reload()
	switch {
	case err != nil:
		m.addNotice("✗ reload: " + err.Error())
	case len(changes) == 0:
		m.addNotice("reloaded: nothing changed")
	default:
		m.addNotice("reloaded:\n" + strings.Join(changes, "\n"))
	}
	if err == nil {
		m.setKeys(m.hostKeys())
	}
	if err == nil && m.host.Shortcuts != nil {
		if notes := m.bindShortcuts(m.host.Shortcuts()); notes != "" {
			m.addNotice(notes)
		}
	}
	if err == nil {
		// The themes were read again with the rest.
		if note := m.applyTheme(); note != "" {
			m.addNotice(note)
		}
	}
	return m.flush()
}

func (m *Model) cmdPrompt(string) tea.Cmd {
	if m.host.Sections == nil {
		return m.unavailable("/prompt")
	}
	secs, err := m.host.Sections()
	if err != nil {
		m.addNotice("✗ " + err.Error())
		return m.flush()
	}
	var b strings.Builder
	b.WriteString("system prompt sections:")
	for _, s := range secs {
		fmt.Fprintf(&b, "\n%-22s %6d bytes  %s", s.Name, s.Bytes, s.Source)
	}
	m.addNotice(b.String())
	return m.flush()
}

func (m *Model) cmdMCP(args string) tea.Cmd {
	if m.host.MCP == nil {
		m.addNotice("no MCP servers are configured (mcp.json; see pi mcp add)")
		return m.flush()
	}
	if strings.HasPrefix(strings.TrimSpace(args), "reconnect") {
		m.addNotice("connecting…")
	}
	mcp := m.host.MCP
	// Connecting may take a server's whole timeout: off the update loop.
	return tea.Batch(m.flush(), func() tea.Msg {
		text, err := mcp(args)
		if err != nil {
			text = strings.TrimSpace(text + "\n✗ " + err.Error())
		}
		return noticeMsg(text)
	})
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return "(" + err.Error() + ")"
}

func (m *Model) setModel(spec string) tea.Cmd {
	if err := m.host.SetModel(spec); err != nil {
		m.addNotice("✗ " + err.Error())
	} else {
		r := m.rt.Route()
		m.addNotice("model: " + r.Provider + "/" + r.ModelID)
	}
	return m.flush()
}

// runBash runs a direct command, drawn live like a tool call.
func (m *Model) runBash(command string, add bool) tea.Cmd {
	if command == "" {
		return nil
	}
	m.nextBash++
	id := m.nextBash
	m.bash = &liveTool{id: fmt.Sprint(id), t: render.Tool{Name: "$", Args: []byte(fmt.Sprintf(`{"command":%q}`, command))}, started: time.Now()}
	rt, send := m.rt, m.send
	return tea.Batch(m.clock(), func() tea.Msg {
		started := time.Now()
		res, err := rt.Bash(rt.Context(), command, add, func(out string) {
			if send != nil {
				send(bashMsg{id: id, output: out})
			}
		})
		return bashMsg{id: id, done: true, res: res, err: err, took: time.Since(started)}
	})
}

func (m *Model) bashUpdate(b bashMsg) tea.Cmd {
	if m.bash == nil || m.bash.id != fmt.Sprint(b.id) {
		return nil
	}
	if !b.done {
		m.bash.t.Output = b.output
		return nil
	}
	t := m.bash.t
	m.bash = nil
	t.Done, t.DurationMs = true, b.took.Milliseconds()
	switch {
	case b.err != nil:
		t.Output, t.IsError = b.err.Error(), true
	default:
		t.Output = b.res.Output
		if b.res.ExitCode != 0 {
			t.IsError = true
			t.Output += fmt.Sprintf("\n(exit code %d)", b.res.ExitCode)
		}
		if b.res.Cancelled {
			t.IsError = true
			t.Output += "\n(cancelled)"
		}
	}
	m.addBlock(func(w int, x bool) string { return render.ToolCall(t, x, w, m.st) })
	return m.flush()
}

// complete updates the completion menu for the editor's text: "/" at the
// start completes commands, a word starting with "@" completes paths.
func (m *Model) complete() {
	v := m.editor.Value()
	m.menu = nil
	switch {
	case strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " \n"):
		for _, it := range m.commandItems() {
			if strings.HasPrefix(it.value, v) {
				m.menu = append(m.menu, it)
			}
		}
	default:
		word := v[strings.LastIndexAny(v, " \n")+1:]
		if strings.HasPrefix(word, "@") {
			m.menu = m.fileItems(word[1:])
		} else if strings.HasPrefix(v, "/") && !strings.Contains(v, "\n") {
			// An extension command's argument: its guest is asked
			// (off this goroutine; see askArgs).
			m.wantArgs(v)
		}
	}
	if m.menuSel >= len(m.menu) {
		m.menuSel = 0
	}
}

func (m *Model) commandItems() []item {
	items := builtinItems()
	for _, c := range m.rt.Commands() {
		desc := c.Description
		switch c.Source {
		case "extension":
			desc = "[" + c.Extension + "] " + desc
		case "prompt":
			desc = "[template] " + desc
		}
		items = append(items, item{value: "/" + c.Name, label: "/" + c.Name, desc: desc})
	}
	return items
}

// fileItems lists paths under the project that start with prefix.
func (m *Model) fileItems(prefix string) []item {
	dir, base := filepath.Split(prefix)
	root := filepath.Join(m.host.Cwd, dir)
	if filepath.IsAbs(dir) {
		root = dir
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var out []item
	for _, e := range entries {
		n := e.Name()
		if !strings.HasPrefix(n, base) || (strings.HasPrefix(n, ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		v := dir + n
		if e.IsDir() {
			v += "/"
		}
		out = append(out, item{value: "@" + v, label: "@" + v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].value < out[j].value })
	return out
}

// accept puts the selected completion into the editor.
func (m *Model) accept() {
	sel := m.menu[m.menuSel]
	v := m.editor.Value()
	if strings.HasPrefix(sel.value, "@") {
		cut := strings.LastIndexAny(v, " \n") + 1
		v = v[:cut] + sel.value
		if !strings.HasSuffix(sel.value, "/") {
			v += " "
		}
	} else {
		v = sel.value + " "
	}
	m.editor.SetValue(v)
	m.editor.CursorEnd()
	m.complete()
	if !strings.HasSuffix(v, "/") {
		m.menu = nil
	}
}

// menuRows is how many completions show at once (autocompleteMaxVisible);
// the list scrolls with the selection.
func (m *Model) menuRows() int { return max(1, m.disp.AutocompleteMaxVisible) }

func (m *Model) menuView() string {
	var lines []string
	from := 0
	rows := m.menuRows()
	if m.menuSel >= rows {
		from = m.menuSel - rows + 1
	}
	to := min(len(m.menu), from+rows)
	for i := from; i < to; i++ {
		it := m.menu[i]
		mark := "  "
		if i == m.menuSel {
			mark = "▸ "
		}
		line := mark + termtext.Escape(it.label)
		if it.desc != "" {
			line += "  " + m.st.Dim.Render(termtext.Escape(it.desc))
		}
		lines = append(lines, truncateTo(line, m.width+20))
	}
	if len(m.menu) > rows {
		lines = append(lines, m.st.Dim.Render(fmt.Sprintf("  (%d of %d, up/down for more)", m.menuSel+1, len(m.menu))))
	}
	return strings.Join(lines, "\n")
}

// dialogKey answers the open dialog.
func (m *Model) dialogKey(k tea.KeyPressMsg) tea.Cmd {
	d := m.dialog
	if d.custom != nil {
		return d.custom.key(m, m.customKey(k))
	}
	s := m.selectKey(k)
	if d.input {
		switch s {
		case "enter":
			m.dialog = nil
			return d.submit(m, string(d.typed))
		case "esc":
			m.dialog = nil
			if d.cancel != nil {
				return d.cancel(m)
			}
			m.addNotice("cancelled: nothing stored")
			return m.flush()
		case "backspace":
			if len(d.typed) > 0 {
				d.typed = d.typed[:len(d.typed)-1]
			}
		case "space":
			d.typed = append(d.typed, ' ')
		default:
			if r := []rune(s); len(r) == 1 {
				d.typed = append(d.typed, r[0])
			}
		}
		return nil
	}
	switch s {
	case "up", "left", "shift+tab":
		d.sel = (d.sel + len(d.options) - 1) % len(d.options)
		return nil
	case "down", "right", "tab":
		d.sel = (d.sel + 1) % len(d.options)
		return nil
	case "space", " ":
		if d.checked != nil {
			d.checked[d.sel] = !d.checked[d.sel]
			return nil
		}
	case "enter":
		m.dialog = nil
		if d.checked != nil {
			return d.done(m, d.checked)
		}
		return d.choose(m, d.sel)
	case "esc":
		m.dialog = nil
		if d.checked != nil {
			return nil
		}
		return d.choose(m, -1)
	}
	for i, o := range d.options {
		if o.key != "" && o.key == s {
			m.dialog = nil
			return d.choose(m, i)
		}
	}
	return nil
}

type option struct {
	key, label string
}

// dialog is a question with options, answered with arrows and enter, a
// shortcut key, or esc (choose gets -1).
type dialog struct {
	// from is the extension that asks ("" for pi's own dialogs); its
	// dialogs end with a line that says so.
	from    string
	title   string
	body    string
	options []option
	sel     int
	choose  func(m *Model, i int) tea.Cmd
	// checked, when set, makes a list to tick: space toggles the
	// selected option, enter calls done, esc closes without it.
	checked []bool
	done    func(m *Model, checked []bool) tea.Cmd
	// input makes a masked text field (a secret): keys and pastes go
	// into typed, drawn as dots; enter calls submit.
	input  bool
	typed  []rune
	submit func(m *Model, text string) tea.Cmd
	// plain shows the typed text (not a secret); cancel, when set, is
	// what esc does to an input.
	plain  bool
	cancel func(m *Model) tea.Cmd
	// owner identifies the question an extension's dialog answers, so
	// that it can be taken down when the question's deadline passes.
	owner chan host.Answer
	// custom, when set, draws the dialog and takes its keys (the
	// session picker).
	custom customDialog
}

// customDialog is a dialog with its own keys and drawing.
type customDialog interface {
	key(m *Model, s string) tea.Cmd
	paste(text string) tea.Cmd
	view(width int, st render.Styles) string
}

func (d *dialog) view(width int, st render.Styles) string {
	if d.custom != nil {
		return d.custom.view(width, st)
	}
	var b strings.Builder
	b.WriteString(st.Accent.Render("┃ ") + st.Title.Render(d.title))
	if d.body != "" {
		for _, l := range strings.Split(d.body, "\n") {
			b.WriteString("\n" + st.Accent.Render("┃ ") + truncateTo(termtext.Escape(l), width-2))
		}
	}
	if d.input {
		shown := strings.Repeat("•", min(len(d.typed), width-6))
		if d.plain {
			shown = truncateTo(termtext.Escape(string(d.typed)), width-6)
		}
		b.WriteString("\n" + st.Accent.Render("┃ ") + "> " + shown)
	}
	for i, o := range d.options {
		mark := "  "
		if i == d.sel {
			mark = "▸ "
		}
		label := termtext.Escape(o.label)
		if o.key != "" {
			label = "[" + o.key + "] " + label
		}
		if d.checked != nil {
			box := "[ ] "
			if d.checked[i] {
				box = "[x] "
			}
			label = box + label
		}
		line := mark + label
		if i == d.sel {
			line = st.Title.Render(line)
		}
		b.WriteString("\n" + st.Accent.Render("┃ ") + truncateTo(line, width-2))
	}
	if d.from != "" {
		b.WriteString("\n" + st.Accent.Render("┃ ") + st.Dim.Render(truncateTo(askedBy(d.from), width-2)))
	}
	return b.String()
}

func permissionDialog(a askMsg) *dialog {
	q := a.q
	what := q.Tool
	switch {
	case q.Command != "":
		what += ": " + q.Command
	case q.Path != "":
		what += ": " + q.Path
	}
	body := what
	if q.Reason != "" {
		body += "\n(" + q.Reason + ")"
	}
	title := "Allow this call?"
	options := []option{{"y", "allow once"}, {"a", "always allow " + q.Suggested + " in this session"}, {"n", "deny"}}
	if q.Source == "sandbox" {
		title = "Run it outside the sandbox?"
		options = []option{{"y", "once, unconfined"}, {"a", "unconfined for " + q.Suggested + " in this session"}, {"n", "no, keep the refusal"}}
	}
	return &dialog{
		title:   title,
		body:    body,
		options: options,
		choose: func(m *Model, i int) tea.Cmd {
			ans := permission.Answer{Choice: permission.DenyCall}
			switch i {
			case 0:
				ans.Choice = permission.AllowOnce
			case 1:
				ans.Choice = permission.AllowAlways
			}
			a.reply <- ans
			return nil
		},
	}
}

func trustDialog(dir string) *dialog {
	return &dialog{
		title: "Trust this project?",
		body: dir + "\nhas project resources in .pi/ (settings, prompts, skills, templates or extensions).\n" +
			"Trusting lets pi load them; the answer is remembered in trust.json.",
		options: []option{{"y", "trust it"}, {"n", "not now (load nothing from .pi/)"}},
		choose: func(m *Model, i int) tea.Cmd {
			yes := i == 0
			changes, err := m.host.Trust(yes)
			switch {
			case err != nil:
				m.addNotice("✗ trust: " + err.Error())
			case yes:
				m.addNotice("trusted " + dir + joinChanges(changes))
			default:
				m.addNotice("not trusted: pi loads nothing from " + filepath.Join(dir, ".pi"))
			}
			return tea.Batch(m.flush(), m.sendInitial())
		},
	}
}

func joinChanges(c []string) string {
	if len(c) == 0 {
		return ""
	}
	return "\n" + strings.Join(c, "\n")
}

func modelDialog(list []string) *dialog {
	return pickDialog("Use which model?", list, func(m *Model, spec string) tea.Cmd { return m.setModel(spec) })
}
