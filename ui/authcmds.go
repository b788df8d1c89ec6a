package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// /login stores a provider's API key in auth.json (typed or pasted into a
// masked field, never drawn); /logout forgets a stored credential. OAuth
// sign-in belongs to the established harness's /login: pi uses and
// refreshes the tokens it stores there.

func (m *Model) cmdLogin(args string) tea.Cmd {
	if m.host.SaveAPIKey == nil {
		return m.unavailable("/login")
	}
	if p := strings.TrimSpace(args); p != "" {
		m.dialog = keyDialog(p)
		return nil
	}
	var list []string
	if m.host.LoginProviders != nil {
		list = m.host.LoginProviders()
	}
	if len(list) == 0 {
		m.addNotice("usage: /login PROVIDER (the provider's id, as in models.json)")
		return m.flush()
	}
	m.dialog = pickDialog("Store an API key for which provider?", list, func(m *Model, p string) tea.Cmd {
		m.dialog = keyDialog(p)
		return nil
	})
	return nil
}

func keyDialog(provider string) *dialog {
	return &dialog{
		title: "API key for " + provider,
		body:  "Paste or type it, then enter (esc cancels). It is stored in auth.json (mode 0600), where the\nestablished harness finds it too.",
		input: true,
		submit: func(m *Model, key string) tea.Cmd {
			key = strings.TrimSpace(key)
			if key == "" {
				m.addNotice("no key given: nothing stored")
				return m.flush()
			}
			path, err := m.host.SaveAPIKey(provider, key)
			if err != nil {
				m.addNotice("✗ login: " + err.Error())
				return m.flush()
			}
			m.addNotice("stored an API key for " + provider + " in " + path)
			return m.flush()
		},
	}
}

func (m *Model) cmdLogout(args string) tea.Cmd {
	if m.host.StoredCredentials == nil || m.host.Logout == nil {
		return m.unavailable("/logout")
	}
	forget := func(p string) tea.Cmd {
		ok, err := m.host.Logout(p)
		switch {
		case err != nil:
			m.addNotice("✗ logout: " + err.Error())
		case !ok:
			m.addNotice("no stored credential for " + p)
		default:
			m.addNotice("forgot the stored credential of " + p + " (auth.json); keys from the environment or models.json still apply")
		}
		return m.flush()
	}
	if p := strings.TrimSpace(args); p != "" {
		return forget(p)
	}
	list, err := m.host.StoredCredentials()
	if err != nil || len(list) == 0 {
		m.addNotice("no stored credentials " + errText(err))
		return m.flush()
	}
	m.dialog = pickDialog("Forget the stored credential of which provider?", list, func(_ *Model, p string) tea.Cmd { return forget(p) })
	return nil
}

// pickDialog offers names (the first nine with number keys) and calls pick
// with the one chosen; esc chooses nothing.
func pickDialog(title string, names []string, pick func(m *Model, name string) tea.Cmd) *dialog {
	d := &dialog{title: title}
	for i, n := range names {
		key := ""
		if i < 9 {
			key = fmt.Sprint(i + 1)
		}
		d.options = append(d.options, option{key: key, label: n})
	}
	d.choose = func(m *Model, i int) tea.Cmd {
		if i < 0 {
			return nil
		}
		return pick(m, names[i])
	}
	return d
}
