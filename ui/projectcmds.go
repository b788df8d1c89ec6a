package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/piwasm/pi/core/export"
)

// /import, /trust, /changelog and /share: the commands that reach outside
// the conversation (other session files, trust.json, pi's own changelog,
// a gist). Each asks before it replaces or sends anything.

// TrustChoice is what /trust saves.
type TrustChoice int

const (
	// TrustHere trusts the project directory.
	TrustHere TrustChoice = iota
	// TrustParent trusts the parent directory (and drops the project's
	// own entry, so the parent's decision applies).
	TrustParent
	// Distrust saves "do not trust" for the project directory.
	Distrust
	// Revoke removes the project's own saved decision.
	Revoke
)

// TrustStatus is what /trust shows before asking.
type TrustStatus struct {
	Dir, Parent string
	// Saved describes the stored decision ("none", "trusted (DIR)",
	// "untrusted (inherited from DIR)").
	Saved string
	// Current is whether this session loaded the project's resources.
	Current bool
}

func (m *Model) cmdImport(args string) tea.Cmd {
	if m.host.ImportSession == nil {
		return m.unavailable("/import")
	}
	path := strings.TrimSpace(args)
	if path == "" {
		m.addNotice("usage: /import FILE.jsonl (a session file of pi or of the established harness)")
		return m.flush()
	}
	if !m.idle("/import") {
		return m.flush()
	}
	m.dialog = &dialog{
		title:   "Import a session",
		body:    "Replace the current session with " + path + "?\nThe file is copied next to this directory's sessions; the original stays as it is.",
		options: []option{{"y", "import it"}, {"n", "cancel"}},
		choose: func(m *Model, i int) tea.Cmd {
			if i != 0 {
				m.addNotice("import cancelled")
				return m.flush()
			}
			stored, err := m.host.ImportSession(path)
			if err != nil {
				m.addNotice("✗ import: " + err.Error())
				return m.flush()
			}
			m.addNotice("imported " + path + "\nas " + stored)
			m.showHistory(m.rt.Messages())
			return m.flush()
		},
	}
	return nil
}

func (m *Model) cmdTrust(string) tea.Cmd {
	if m.host.TrustStatus == nil || m.host.SetTrust == nil {
		return m.unavailable("/trust")
	}
	st, err := m.host.TrustStatus()
	if err != nil {
		m.addNotice("✗ trust: " + err.Error())
		return m.flush()
	}
	cur := "untrusted"
	if st.Current {
		cur = "trusted"
	}
	d := &dialog{title: "Project trust", body: fmt.Sprintf("%s\nsaved decision: %s\nthis session: %s", st.Dir, st.Saved, cur)}
	choices := []TrustChoice{TrustHere}
	d.options = append(d.options, option{"t", "trust"})
	if st.Parent != "" {
		choices = append(choices, TrustParent)
		d.options = append(d.options, option{"p", "trust the parent folder (" + st.Parent + ")"})
	}
	choices = append(choices, Distrust, Revoke)
	d.options = append(d.options, option{"d", "do not trust"}, option{"r", "revoke: forget the saved decision"})
	d.choose = func(m *Model, i int) tea.Cmd {
		if i < 0 {
			return nil
		}
		if err := m.host.SetTrust(choices[i]); err != nil {
			m.addNotice("✗ trust: " + err.Error())
			return m.flush()
		}
		m.addNotice("saved: " + d.options[i].label + " (trust.json)\n/reload applies it to this session; new sessions use it from now on")
		return m.flush()
	}
	m.dialog = d
	return nil
}

func (m *Model) cmdChangelog(string) tea.Cmd {
	text := strings.TrimSpace(m.host.Changelog)
	if text == "" {
		m.addNotice("no changelog in this build")
		return m.flush()
	}
	m.addBlock(func(w int, _ bool) string { return m.md.Render(text) })
	return m.flush()
}

// cmdShare publishes the session as a secret gist through the gh command,
// after saying what leaves the machine and asking.
func (m *Model) cmdShare(string) tea.Cmd {
	if m.host.Share == nil {
		return m.unavailable("/share")
	}
	if m.host.ShareRefusal != "" {
		m.addNotice("✗ share: " + m.host.ShareRefusal)
		return m.flush()
	}
	msgs := m.rt.Messages()
	if len(msgs) == 0 {
		m.addNotice("nothing to share yet: the session is empty")
		return m.flush()
	}
	page := export.HTML(m.exportMeta(), msgs)
	m.dialog = &dialog{
		title: "Share this session?",
		body: fmt.Sprintf("pi will upload the whole conversation (%d messages, %.1f KiB of HTML: your requests, the replies,\n"+
			"every tool call and its output, which may include file contents and secrets) to GitHub\n"+
			"as a secret gist with the gh command. Anyone with the link can read it.", len(msgs), float64(len(page))/1024),
		options: []option{{"y", "upload it"}, {"n", "cancel"}},
		choose: func(m *Model, i int) tea.Cmd {
			if i != 0 {
				m.addNotice("share cancelled: nothing was sent")
				return m.flush()
			}
			m.notice = "uploading…"
			share := m.host.Share
			return func() tea.Msg {
				url, err := share(page)
				if err != nil {
					return noticeMsg("✗ share: " + err.Error())
				}
				return noticeMsg("shared as a secret gist: " + url)
			}
		},
	}
	return nil
}
