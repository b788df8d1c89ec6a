package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// Setting is one key /settings offers: its value in force and the values
// it can take (JSON text).
type Setting struct {
	Name    string
	Value   string // JSON text in force (the default when no file sets it)
	Options []string
	// File is where a change is written: the file that sets the key now
	// (so the change is not shadowed), else the global settings.json.
	File string
}

// cmdSettings shows the common settings and changes one: pick a key, then
// its new value; the change is written to the file that decides it.
func (m *Model) cmdSettings(string) tea.Cmd {
	if m.host.Settings == nil || m.host.SetSetting == nil {
		return m.unavailable("/settings")
	}
	list, err := m.host.Settings()
	if err != nil || len(list) == 0 {
		m.addNotice("no settings to change here " + errText(err))
		return m.flush()
	}
	d := &dialog{title: "Settings (enter changes one; esc closes)"}
	for _, s := range list {
		d.options = append(d.options, option{label: fmt.Sprintf("%-26s %s", s.Name, s.Value)})
	}
	d.choose = func(m *Model, i int) tea.Cmd {
		if i < 0 {
			return nil
		}
		s := list[i]
		vd := &dialog{title: s.Name + " (now " + s.Value + ")", body: "saved in " + s.File}
		for j, o := range s.Options {
			vd.options = append(vd.options, option{key: fmt.Sprint(j + 1), label: o})
			if o == s.Value {
				vd.sel = j
			}
		}
		vd.choose = func(m *Model, j int) tea.Cmd {
			if j < 0 {
				return m.cmdSettings("")
			}
			file, err := m.host.SetSetting(s.Name, s.Options[j])
			if err != nil {
				m.addNotice("✗ " + err.Error())
				return m.flush()
			}
			switch s.Name {
			case "hideThinkingBlock":
				m.st.HideThinking = s.Options[j] == "true"
			case "theme":
				m.chooseTheme(s.Options[j])
				m.addNotice(fmt.Sprintf("%s = %s (saved in %s)", s.Name, s.Options[j], file))
				return m.flush()
			}
			if note, ok := m.setDisplay(s.Name, s.Options[j]); ok {
				m.addNotice(fmt.Sprintf("%s = %s (saved in %s%s)", s.Name, s.Options[j], file, note))
				return m.flush()
			}
			if note, ok := m.setTerminal(s.Name, s.Options[j]); ok {
				m.addNotice(fmt.Sprintf("%s = %s (saved in %s%s)", s.Name, s.Options[j], file, note))
				return m.flush()
			}
			m.addNotice(fmt.Sprintf("%s = %s (saved in %s; /reload applies it to this session)", s.Name, s.Options[j], file))
			return m.flush()
		}
		m.dialog = vd
		return nil
	}
	m.dialog = d
	return nil
}
