package ui

import (
	"fmt"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// slashCommand is one of the session's own commands. Each lives in a
// function of its own; the table below is the one list that /help,
// completion and dispatch read, so a command added here is documented
// and completed with nothing else to change.
type slashCommand struct {
	name    string // without the slash
	aliases []string
	// args is a hint shown after the name in /help ("[name]").
	args string
	desc string
	run  func(m *Model, args string) tea.Cmd
}

// slashCommands lists the built-in commands in the order /help shows them.
func slashCommands() []slashCommand {
	return []slashCommand{
		{name: "help", desc: "show keys and commands", run: (*Model).cmdHelp},
		{name: "model", args: "[name]", desc: "pick or set the model", run: (*Model).cmdModel},
		{name: "new", desc: "start a new session", run: (*Model).cmdNew},
		{name: "resume", desc: "resume an earlier session", run: (*Model).cmdResume},
		{name: "compact", args: "[focus]", desc: "summarise the older messages to free context (focus: what the summary should keep)", run: (*Model).cmdCompact},
		{name: "tree", desc: "go back to any earlier point of the session (esc twice on an empty editor)", run: (*Model).cmdTree},
		{name: "fork", desc: "continue in a new session from an earlier message of this one", run: (*Model).cmdFork},
		{name: "clone", desc: "continue in a copy of this session", run: (*Model).cmdClone},
		{name: "name", args: "[name]", desc: "show or set the session's name", run: (*Model).cmdName},
		{name: "session", desc: "show the session file and its size", run: (*Model).cmdSession},
		{name: "reload", desc: "re-read context files, prompts, skills, templates, settings, extensions", run: (*Model).cmdReload},
		{name: "prompt", desc: "show the system prompt's sections and their sources", run: (*Model).cmdPrompt},
		{name: "settings", desc: "view and change the common settings (written to settings.json)", run: (*Model).cmdSettings},
		{name: "thinking", args: "[level]", desc: "set the thinking level (shift+tab cycles)", run: (*Model).cmdThinking},
		{name: "scoped-models", desc: "choose the models ctrl+p cycles through", run: (*Model).cmdScopedModels},
		{name: "copy", desc: "copy the last reply to the clipboard", run: (*Model).cmdCopy},
		{name: "export", args: "[path]", desc: "write the session as HTML, Markdown (.md) or JSONL (.jsonl)", run: (*Model).cmdExport},
		{name: "hotkeys", desc: "show the keyboard shortcuts", run: (*Model).cmdHotkeys},
		{name: "login", args: "[provider]", desc: "store a provider's API key in auth.json", run: (*Model).cmdLogin},
		{name: "logout", args: "[provider]", desc: "forget a provider's stored credential", run: (*Model).cmdLogout},
		{name: "import", args: "FILE", desc: "open a session file (pi's or the established harness's) as this session", run: (*Model).cmdImport},
		{name: "share", desc: "publish the session as a secret GitHub gist (asks first)", run: (*Model).cmdShare},
		{name: "mcp", args: "[reconnect NAME]", desc: "MCP servers: state, tools and errors; reconnect one", run: (*Model).cmdMCP},
		{name: "trust", desc: "trust or distrust this project's .pi/ resources (trust.json)", run: (*Model).cmdTrust},
		{name: "changelog", desc: "what changed in each version of pi", run: (*Model).cmdChangelog},
		{name: "quit", aliases: []string{"exit"}, desc: "leave pi", run: (*Model).cmdQuit},
	}
}

const helpKeys = `Keys: enter sends (while pi works: steers) · alt+enter queues a follow-up · shift+enter or ctrl+j adds a line
esc aborts · ctrl+c clears the editor, twice quits · ctrl+o expands tool output · up/down browse history · tab completes
/ completes commands, templates, skills (/skill:name) and extension commands · @ completes file paths
!cmd runs a command and adds its output to the next message · !!cmd runs it without adding`

// slash runs a built-in command; ok is false when name is not one (a
// template, skill or extension command goes to the runtime). A line that
// looks like a command but names none is answered here, never sent.
func (m *Model) slash(name, args string) (tea.Cmd, bool) {
	bare := strings.TrimPrefix(name, "/")
	for _, c := range slashCommands() {
		if c.name == bare || contains(c.aliases, bare) {
			return c.run(m, args), true
		}
	}
	if !looksLikeCommand(bare) || m.runtimeCommand(bare) {
		return nil, false
	}
	msg := "unknown command " + name
	if near := m.nearestCommand(bare); near != "" {
		msg += ": did you mean /" + near + "?"
	}
	m.addNotice(msg + " (/help lists them; start the line with a space to send it as text)")
	return m.flush(), true
}

// looksLikeCommand is true for a name made of the characters command
// names use; "/usr/bin/env is missing" is a message, not a command.
func looksLikeCommand(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == ':' || r == '.') {
			return false
		}
	}
	return true
}

func (m *Model) runtimeCommand(name string) bool {
	for _, c := range m.rt.Commands() {
		if c.Name == name {
			return true
		}
	}
	return false
}

// nearestCommand is the known command closest to name by edit distance,
// when it is close enough to be a typo.
func (m *Model) nearestCommand(name string) string {
	var names []string
	for _, c := range slashCommands() {
		names = append(names, c.name)
		names = append(names, c.aliases...)
	}
	for _, c := range m.rt.Commands() {
		names = append(names, c.Name)
	}
	sort.Strings(names)
	best, bestD := "", len(name)/2+2
	for _, n := range names {
		if d := editDistance(strings.ToLower(name), strings.ToLower(n)); d < bestD || (strings.HasPrefix(n, name) && best == "") {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// builtinItems are the built-in commands as completion candidates.
func builtinItems() []item {
	var out []item
	for _, c := range slashCommands() {
		out = append(out, item{value: "/" + c.name, label: "/" + c.name, desc: c.desc})
	}
	return out
}

func helpText() string {
	var b strings.Builder
	b.WriteString(helpKeys + "\nCommands:")
	for _, c := range slashCommands() {
		label := "/" + c.name
		if c.args != "" {
			label += " " + c.args
		}
		fmt.Fprintf(&b, "\n  %-22s %s", label, c.desc)
	}
	return b.String()
}

// unavailable answers a command whose host function is missing.
func (m *Model) unavailable(what string) tea.Cmd {
	m.addNotice(what + " is not available here")
	return m.flush()
}

// idle is true when the agent is not working; otherwise it says the
// command must wait.
func (m *Model) idle(name string) bool {
	if m.working || m.compacting {
		m.addNotice(name + " needs the agent to be idle: wait, or press esc to abort")
		return false
	}
	return true
}
