package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/piwasm/pi/core/keybind"
	"github.com/piwasm/pi/ui/render"
)

// The session picker of /resume and pi -r, laid out and keyed as the
// established harness's: this directory's sessions or every directory's
// (tab), search as you type, ctrl+s cycles the order (threaded, recent,
// relevance), ctrl+n shows only named sessions, ctrl+p shows file paths,
// ctrl+d (or ctrl+backspace on an empty search) deletes after asking,
// ctrl+r renames (/resume only), enter resumes, esc closes.

// sessionRows is how many sessions the picker shows at once.
const sessionRows = 10

type sortMode int

const (
	sortThreaded sortMode = iota
	sortRecent
	sortRelevance
)

func (s sortMode) String() string {
	return [...]string{"Threaded", "Recent", "Fuzzy"}[s]
}

// sessionRow is a session in the drawn list, with its place in the tree
// of forks (threaded order).
type sessionRow struct {
	s         SessionInfo
	depth     int
	last      bool
	continues []bool
}

type sessionPicker struct {
	all      bool
	lists    [2][]searchable
	loaded   [2]bool
	query    []rune
	rows     []sessionRow
	sel      int
	sort     sortMode
	named    bool
	showPath bool
	// confirm is the session whose deletion is being asked.
	confirm string
	status  string
	failed  bool
	// renaming holds the new name being typed for renamePath.
	renaming   bool
	renamed    []rune
	renamePath string
	// texts says, per scope, whether the message text the search looks
	// through was asked for; it is read in the background (cmd) and
	// arrives as a sessionTextsMsg, the search meanwhile matching names,
	// ids, directories and first messages.
	textsAsked [2]bool
	cmd        tea.Cmd
	current    string
	startup    bool // pi -r: no renaming, as the established harness
	h          *Host
	now        func() time.Time
}

func newSessionPicker(h *Host, current string, startup bool) *sessionPicker {
	p := &sessionPicker{startup: startup, current: current, h: h, now: time.Now}
	p.load(false)
	return p
}

// openSessionPicker opens /resume's picker on this directory's sessions.
func (m *Model) openSessionPicker() {
	p := newSessionPicker(&m.host, m.rt.State().SessionFile, false)
	m.dialog = &dialog{custom: resumeDialog{p}}
}

// resumeDialog is the picker inside the session.
type resumeDialog struct{ p *sessionPicker }

func (d resumeDialog) key(m *Model, s string) tea.Cmd {
	path, done := d.p.key(s)
	if !done {
		return d.p.takeCmd()
	}
	m.dialog = nil
	if path == "" {
		return m.sendInitial()
	}
	cmd := m.resumeSession(path)
	if s, ok := d.p.selected(); ok && s.Path == path && s.Cwd != "" && m.host.Cwd != "" && filepath.Clean(s.Cwd) != filepath.Clean(m.host.Cwd) {
		// pi's tools and resources stay those of the directory it runs
		// in: say so (pi -r starts a session in its own directory).
		m.addNotice(fmt.Sprintf("This session was made in %s; it continues here, in %s (pi -r opens a session in its own directory)", s.Cwd, m.host.Cwd))
		cmd = tea.Batch(cmd, m.flush())
	}
	return cmd
}

func (d resumeDialog) paste(text string) tea.Cmd               { d.p.paste(text); return d.p.takeCmd() }
func (d resumeDialog) view(width int, st render.Styles) string { return d.p.view(width, st) }

func (p *sessionPicker) load(all bool) {
	i := scopeIndex(all)
	list, err := p.h.Sessions(all)
	switch {
	case err != nil && list == nil:
		p.status, p.failed = "Failed to load sessions: "+err.Error(), true
	case err != nil:
		// Listed, with a problem to tell (the index not saved).
		p.status, p.failed = err.Error(), true
	}
	p.lists[i] = make([]searchable, len(list))
	for j, s := range list {
		// Until the message text is read, the first message stands
		// for it.
		p.lists[i][j] = searchable{s: s, text: strings.ToLower(s.First)}
	}
	p.loaded[i], p.textsAsked[i] = true, false
	p.refilter()
}

func scopeIndex(all bool) int {
	if all {
		return 1
	}
	return 0
}

// refilter rebuilds the rows from the scope's sessions, the name filter,
// the order and the query. The message text the search looks through is
// read the first time a query needs it.
func (p *sessionPicker) refilter() {
	i := scopeIndex(p.all)
	list := p.lists[i]
	if p.named {
		var keep []searchable
		for _, x := range list {
			if strings.TrimSpace(x.s.Name) != "" {
				keep = append(keep, x)
			}
		}
		list = keep
	}
	q := strings.TrimSpace(string(p.query))
	switch {
	case q == "" && p.sort == sortThreaded:
		ss := make([]SessionInfo, len(list))
		for j, x := range list {
			ss[j] = x.s
		}
		p.rows = threadSessions(ss)
	case q == "":
		p.rows = flatRows(sessionsOf(list))
	default:
		if !p.textsAsked[i] && p.h.SessionText != nil {
			p.textsAsked[i] = true
			p.cmd = p.readTexts(i)
		}
		p.rows = flatRows(filterSessions(list, q, p.sort == sortRecent))
	}
	p.sel = min(p.sel, max(0, len(p.rows)-1))
}

// sessionTextsMsg brings the message text of a scope's sessions.
type sessionTextsMsg struct {
	p     *sessionPicker
	scope int
	texts map[string]string
}

// readTexts reads the message text of scope i's sessions, off the UI's
// goroutine: it is every session file read whole.
func (p *sessionPicker) readTexts(i int) tea.Cmd {
	paths := make([]string, len(p.lists[i]))
	for j, x := range p.lists[i] {
		paths[j] = x.s.Path
	}
	read := p.h.SessionText
	return func() tea.Msg {
		texts := make(map[string]string, len(paths))
		for _, path := range paths {
			texts[path] = strings.ToLower(read(path))
		}
		return sessionTextsMsg{p: p, scope: i, texts: texts}
	}
}

func (p *sessionPicker) gotTexts(msg sessionTextsMsg) {
	for j := range p.lists[msg.scope] {
		if t, ok := msg.texts[p.lists[msg.scope][j].s.Path]; ok {
			p.lists[msg.scope][j].text = t
		}
	}
	if msg.scope == scopeIndex(p.all) && strings.TrimSpace(string(p.query)) != "" {
		p.refilter()
	}
}

// takeCmd is the work the last key started (reading message text).
func (p *sessionPicker) takeCmd() tea.Cmd {
	c := p.cmd
	p.cmd = nil
	return c
}

func sessionsOf(list []searchable) []SessionInfo {
	out := make([]SessionInfo, len(list))
	for i, x := range list {
		out[i] = x.s
	}
	return out
}

func flatRows(list []SessionInfo) []sessionRow {
	rows := make([]sessionRow, len(list))
	for i, s := range list {
		rows[i] = sessionRow{s: s, last: true}
	}
	return rows
}

// threadSessions puts each fork under the session it came from
// (the header's parentSession), every level ordered by the latest
// activity anywhere beneath it.
func threadSessions(list []SessionInfo) []sessionRow {
	type node struct {
		s      SessionInfo
		kids   []*node
		latest time.Time
	}
	byPath := map[string]*node{}
	nodes := make([]*node, len(list))
	for i, s := range list {
		nodes[i] = &node{s: s, latest: s.Modified}
		byPath[filepath.Clean(s.Path)] = nodes[i]
	}
	var roots []*node
	for _, n := range nodes {
		if parent, ok := byPath[filepath.Clean(n.s.Parent)]; ok && n.s.Parent != "" && parent != n {
			parent.kids = append(parent.kids, n)
		} else {
			roots = append(roots, n)
		}
	}
	var latest func(n *node, seen map[*node]bool) time.Time
	latest = func(n *node, seen map[*node]bool) time.Time {
		if seen[n] {
			return n.latest
		}
		seen[n] = true
		for _, k := range n.kids {
			if t := latest(k, seen); t.After(n.latest) {
				n.latest = t
			}
		}
		return n.latest
	}
	seen := map[*node]bool{}
	for _, r := range roots {
		latest(r, seen)
	}
	order := func(ns []*node) {
		sort.SliceStable(ns, func(i, j int) bool { return ns[i].latest.After(ns[j].latest) })
	}
	var rows []sessionRow
	var walk func(n *node, depth int, continues []bool, last bool)
	walk = func(n *node, depth int, continues []bool, last bool) {
		rows = append(rows, sessionRow{s: n.s, depth: depth, last: last, continues: continues})
		order(n.kids)
		for i, k := range n.kids {
			more := append(append([]bool(nil), continues...), depth > 0 && !last)
			walk(k, depth+1, more, i == len(n.kids)-1)
		}
	}
	order(roots)
	for i, r := range roots {
		walk(r, 0, nil, i == len(roots)-1)
	}
	return rows
}

func (p *sessionPicker) selected() (SessionInfo, bool) {
	if p.sel < 0 || p.sel >= len(p.rows) {
		return SessionInfo{}, false
	}
	return p.rows[p.sel].s, true
}

// key handles a key; done is true when the picker closes, with the
// chosen session's path ("" when none was chosen).
func (p *sessionPicker) key(s string) (path string, done bool) {
	if p.renaming {
		p.renameKey(s)
		return "", false
	}
	if p.confirm != "" {
		switch s {
		case "enter":
			path := p.confirm
			p.confirm = ""
			p.delete(path)
		case "esc", "ctrl+c":
			p.confirm = ""
		}
		return "", false
	}
	p.status, p.failed = "", false
	switch s {
	case "tab":
		p.all = !p.all
		if !p.loaded[scopeIndex(p.all)] {
			p.load(p.all)
		}
		p.sel = 0
		p.refilter()
	case "ctrl+s":
		p.sort = (p.sort + 1) % 3
		p.refilter()
	case "ctrl+n":
		p.named = !p.named
		p.refilter()
	case "ctrl+p":
		p.showPath = !p.showPath
	case "ctrl+d":
		p.askDelete()
	case "ctrl+backspace":
		if len(p.query) > 0 {
			p.type_(s)
		} else {
			p.askDelete()
		}
	case "ctrl+r":
		if s, ok := p.selected(); ok && p.h.RenameSession != nil && !p.startup {
			p.renaming, p.renamePath, p.renamed = true, s.Path, []rune(s.Name)
		}
	case "up":
		p.sel = max(0, p.sel-1)
	case "down":
		p.sel = max(0, min(len(p.rows)-1, p.sel+1))
	case "pgup":
		p.sel = max(0, p.sel-sessionRows)
	case "pgdown":
		p.sel = max(0, min(len(p.rows)-1, p.sel+sessionRows))
	case "enter":
		if s, ok := p.selected(); ok {
			return s.Path, true
		}
	case "esc", "ctrl+c":
		return "", true
	default:
		p.type_(s)
	}
	return "", false
}

// type_ edits the search: a changed query selects its best match.
func (p *sessionPicker) type_(s string) {
	before := string(p.query)
	switch s {
	case "backspace", "ctrl+h":
		if len(p.query) > 0 {
			p.query = p.query[:len(p.query)-1]
		}
	case "ctrl+backspace", "ctrl+w", "alt+backspace":
		q := strings.TrimRight(string(p.query), " ")
		if i := strings.LastIndexAny(q, " "); i >= 0 {
			p.query = []rune(q[:i+1])
		} else {
			p.query = nil
		}
	case "ctrl+u":
		p.query = nil
	case "space":
		p.query = append(p.query, ' ')
	default:
		if r := []rune(s); len(r) == 1 {
			p.query = append(p.query, r[0])
		}
	}
	if string(p.query) != before {
		p.refilter()
		if strings.TrimSpace(string(p.query)) != "" {
			p.sel = 0
		}
	}
}

func (p *sessionPicker) paste(text string) {
	if p.renaming {
		p.renamed = append(p.renamed, []rune(strings.ReplaceAll(strings.TrimRight(text, "\r\n"), "\n", " "))...)
		return
	}
	if p.confirm != "" {
		return
	}
	p.query = append(p.query, []rune(strings.ReplaceAll(strings.TrimRight(text, "\r\n"), "\n", " "))...)
	p.refilter()
	p.sel = 0
}

func (p *sessionPicker) askDelete() {
	s, ok := p.selected()
	if !ok {
		return
	}
	if p.current != "" && filepath.Clean(s.Path) == filepath.Clean(p.current) {
		p.status, p.failed = "Cannot delete the currently active session", true
		return
	}
	p.confirm = s.Path
}

func (p *sessionPicker) delete(path string) {
	if p.h.DeleteSession == nil {
		p.status, p.failed = "Failed to delete: not available here", true
		return
	}
	trashed, err := p.h.DeleteSession(path)
	if err != nil {
		p.status, p.failed = "Failed to delete: "+err.Error(), true
		return
	}
	p.status = "Session deleted"
	if trashed {
		p.status = "Session moved to trash"
	}
	p.reload()
}

// reload reads the sessions again after a change (delete, rename); the
// other scope is read again when tab next shows it.
func (p *sessionPicker) reload() {
	other := scopeIndex(!p.all)
	p.loaded[other], p.lists[other] = false, nil
	p.load(p.all)
}

func (p *sessionPicker) renameKey(s string) {
	switch s {
	case "esc", "ctrl+c":
		p.renaming = false
	case "enter":
		name := strings.TrimSpace(string(p.renamed))
		if name == "" {
			return
		}
		p.renaming = false
		if err := p.h.RenameSession(p.renamePath, name); err != nil {
			p.status, p.failed = "Failed to rename: "+err.Error(), true
			return
		}
		p.reload()
	case "backspace", "ctrl+h":
		if len(p.renamed) > 0 {
			p.renamed = p.renamed[:len(p.renamed)-1]
		}
	case "ctrl+u":
		p.renamed = nil
	case "space":
		p.renamed = append(p.renamed, ' ')
	default:
		if r := []rune(s); len(r) == 1 {
			p.renamed = append(p.renamed, r[0])
		}
	}
}

// resumeSession switches to the session file and draws its history.
func (m *Model) resumeSession(path string) tea.Cmd {
	if err := m.host.OpenSession(path); err != nil {
		m.addNotice("✗ " + err.Error())
		return m.flush()
	}
	m.addNotice("Resumed session " + path)
	m.showHistory(m.rt.Messages())
	return tea.Batch(m.flush(), m.sendInitial())
}

// sessionAge is how long ago t was, in the picker's short form.
func sessionAge(now, t time.Time) string {
	d := now.Sub(t)
	mins, hours, days := int(d/time.Minute), int(d/time.Hour), int(d/(24*time.Hour))
	switch {
	case mins < 1:
		return "now"
	case mins < 60:
		return fmt.Sprintf("%dm", mins)
	case hours < 24:
		return fmt.Sprintf("%dh", hours)
	case days < 7:
		return fmt.Sprintf("%dd", days)
	case days < 30:
		return fmt.Sprintf("%dw", days/7)
	case days < 365:
		return fmt.Sprintf("%dmo", days/30)
	}
	return fmt.Sprintf("%dy", days/365)
}

func (p *sessionPicker) short(path string) string {
	if home := p.h.Home; home != "" && (path == home || strings.HasPrefix(path, home+string(filepath.Separator))) {
		return "~" + path[len(home):]
	}
	return path
}

func (p *sessionPicker) view(width int, st render.Styles) string {
	width = max(width, 20)
	border := st.Accent.Render(strings.Repeat("─", width))
	lines := []string{"", border, ""}
	if p.renaming {
		lines = append(lines, " "+st.Title.Render("Rename Session"), "", "> "+ansi.Truncate(string(p.renamed), width-3, "…"), "",
			" "+st.Muted.Render("enter to save · escape/ctrl+c to cancel"), "", border)
		return strings.Join(lines, "\n")
	}
	lines = append(lines, p.header(width, st)...)
	lines = append(lines, "", "> "+ansi.Truncate(escapeControls(string(p.query)), width-3, "…"), "")
	lines = append(lines, p.list(width, st)...)
	lines = append(lines, "", border)
	return strings.Join(lines, "\n")
}

func (p *sessionPicker) header(width int, st render.Styles) []string {
	title := "Resume Session (Current Folder)"
	scope := st.Accent.Render("◉ Current Folder") + st.Muted.Render(" | ○ All")
	if p.all {
		title = "Resume Session (All)"
		scope = st.Muted.Render("○ Current Folder | ") + st.Accent.Render("◉ All")
	}
	nameMode := "All"
	if p.named {
		nameMode = "Named"
	}
	right := ansi.Truncate(scope+"  "+st.Muted.Render("Name: ")+st.Accent.Render(nameMode)+"  "+st.Muted.Render("Sort: ")+st.Accent.Render(p.sort.String()), width, "")
	left := ansi.Truncate(st.Title.Render(title), max(0, width-ansi.StringWidth(right)-1), "")
	top := left + strings.Repeat(" ", max(0, width-ansi.StringWidth(left)-ansi.StringWidth(right))) + right
	sep := st.Muted.Render(" · ")
	switch {
	case p.confirm != "":
		return []string{top, st.Error.Render(ansi.Truncate("Delete session? enter confirm · escape/ctrl+c cancel", width, "…")), ""}
	case p.status != "":
		style := st.Accent
		if p.failed {
			style = st.Error
		}
		return []string{top, style.Render(ansi.Truncate(p.status, width, "…")), ""}
	}
	pathState := "(off)"
	if p.showPath {
		pathState = "(on)"
	}
	hint1 := "tab scope" + sep + st.Muted.Render(`re:<pattern> regex · "phrase" exact`)
	hints := []string{"ctrl+s sort", "ctrl+n named", "ctrl+d delete", "ctrl+p path " + pathState}
	if !p.startup {
		hints = append(hints, "ctrl+r rename")
	}
	return []string{top, ansi.Truncate(hint1, width, "…"), ansi.Truncate(strings.Join(hints, sep), width, "…")}
}

func (p *sessionPicker) list(width int, st render.Styles) []string {
	if len(p.rows) == 0 {
		msg := "  No sessions in current folder. Press Tab to view all."
		switch {
		case p.named && p.all:
			msg = "  No named sessions found. Press ctrl+n to show all."
		case p.named:
			msg = "  No named sessions in current folder. Press ctrl+n to show all, or Tab to view all."
		case p.all:
			msg = "  No sessions found"
		}
		return []string{st.Muted.Render(ansi.Truncate(msg, width, "…"))}
	}
	start := max(0, min(p.sel-sessionRows/2, len(p.rows)-sessionRows))
	end := min(start+sessionRows, len(p.rows))
	now := p.now()
	var lines []string
	for i := start; i < end; i++ {
		r := p.rows[i]
		s := r.s
		prefix := ""
		if r.depth > 0 {
			for _, c := range r.continues {
				if c {
					prefix += "│  "
				} else {
					prefix += "   "
				}
			}
			if r.last {
				prefix += "└─ "
			} else {
				prefix += "├─ "
			}
		}
		text := s.Name
		if text == "" {
			text = s.First
		}
		if text == "" {
			text = "(no messages)"
		}
		text = strings.TrimSpace(escapeControls(text))
		rightPart := fmt.Sprintf("%d %s", s.Messages, sessionAge(now, s.Modified))
		if p.all && s.Cwd != "" {
			rightPart = p.short(s.Cwd) + " " + rightPart
		}
		if p.showPath {
			rightPart = p.short(s.Path) + " " + rightPart
		}
		cursor := "  "
		if i == p.sel {
			cursor = st.Accent.Render("› ")
		}
		avail := width - 2 - ansi.StringWidth(prefix) - ansi.StringWidth(rightPart) - 2
		msg := ansi.Truncate(text, max(10, avail), "…")
		switch {
		case s.Path == p.confirm:
			msg = st.Error.Render(msg)
		case p.current != "" && filepath.Clean(s.Path) == filepath.Clean(p.current):
			msg = st.Accent.Render(msg)
		case s.Name != "":
			msg = st.Warning.Render(msg)
		}
		if i == p.sel {
			msg = st.Title.Render(msg)
		}
		left := cursor + st.Dim.Render(prefix) + msg
		gap := max(1, width-ansi.StringWidth(left)-ansi.StringWidth(rightPart))
		rs := st.Dim
		if s.Path == p.confirm {
			rs = st.Error
		}
		lines = append(lines, ansi.Truncate(left+strings.Repeat(" ", gap)+rs.Render(rightPart), width, "..."))
	}
	if start > 0 || end < len(p.rows) {
		lines = append(lines, st.Muted.Render(ansi.Truncate(fmt.Sprintf("  (%d/%d)", p.sel+1, len(p.rows)), width, "")))
	}
	return lines
}

// escapeControls turns control characters into spaces, so a session's
// text cannot move the cursor or change the terminal.
func escapeControls(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
}

// PickSession shows the session picker on its own, before a session
// starts (pi -r), and returns the chosen session file ("" when the person
// closed it without choosing). h needs Sessions; SessionText and
// DeleteSession when set; renaming is not offered here, as in the
// established harness.
func PickSession(ctx context.Context, h Host, in io.Reader, out io.Writer) (string, error) {
	if h.Sessions == nil {
		return "", errors.New("no session list")
	}
	h.RenameSession = nil
	st := render.Plain()
	if h.Color {
		// The session's theme (a LIGHT/DARK pair by COLORFGBG: the
		// picker does not wait for the terminal's answer).
		setting := ""
		if h.ThemeSetting != nil {
			setting = h.ThemeSetting()
		}
		t, _ := pickTheme(h, setting, h.Appearance)
		st = render.FromTheme(t)
	}
	// The picker's keys follow keybindings.json as in the session: a
	// Model holding only the bindings names each press.
	keys := &Model{host: h}
	keys.keys = keys.hostKeys()
	if keys.keys == nil {
		keys.keys = keybind.Defaults(HostPlatform())
	}
	pm := &pickModel{p: newSessionPicker(&h, "", true), st: st, width: 80, keys: keys}
	prog := tea.NewProgram(pm, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out), tea.WithoutSignalHandler())
	if _, err := prog.Run(); err != nil {
		if err == tea.ErrProgramKilled && ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", err
	}
	return pm.chosen, nil
}

type pickModel struct {
	keys   *Model
	p      *sessionPicker
	st     render.Styles
	width  int
	chosen string
	done   bool
}

func (pm *pickModel) Init() tea.Cmd { return nil }

func (pm *pickModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		pm.width = msg.Width
	case tea.PasteMsg:
		pm.p.paste(msg.Content)
		return pm, pm.p.takeCmd()
	case sessionTextsMsg:
		msg.p.gotTexts(msg)
	case tea.KeyPressMsg:
		if path, done := pm.p.key(pm.keys.customKey(msg)); done {
			pm.chosen, pm.done = path, true
			return pm, tea.Quit
		}
		return pm, pm.p.takeCmd()
	}
	return pm, nil
}

func (pm *pickModel) View() tea.View {
	if pm.done {
		return tea.NewView("")
	}
	return tea.NewView(pm.p.view(pm.width, pm.st))
}
