//go:build !noui

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/core/keybind"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/theme"
	"github.com/piwasm/pi/ui"
)

// sessionIndex is where the session picker remembers what it read of each
// session file (see session.Lister): pi's own file, beside the sessions.
const sessionIndex = "session-index.json"

// pickerHost gives the session picker its sessions: those of dir (the
// working directory's, or a sessions directory of its own), and with
// all, every directory's. current names the session open now (renamed
// through the transcript, so its in-memory name follows; never deleted).
func (a *app) pickerHost(l *resources.Loaded, dir string, current func() (string, *session.Transcript)) ui.Host {
	lister := session.OpenLister(filepath.Join(l.AgentDir, sessionIndex))
	cwd := l.Cwd
	return ui.Host{
		Home: a.home, Color: a.getenv("NO_COLOR") == "",
		Sessions: func(all bool) ([]ui.SessionInfo, error) {
			var list []session.Summary
			if all {
				list = lister.ListAll(dir)
			} else {
				list = lister.List(dir, cwd)
			}
			// The index is a cache: a failure to keep it is shown in the
			// picker (stderr would tear the screen), the list stands.
			saveErr := lister.Save()
			cur, _ := current()
			out := make([]ui.SessionInfo, 0, len(list))
			for _, s := range list {
				if s.Messages == 0 && cur != "" && samePath(cur, s.Path) {
					// pi writes a new session's header at once; the
					// established harness writes nothing until the
					// first reply, so this session is not one to list.
					continue
				}
				out = append(out, ui.SessionInfo{Path: s.Path, ID: s.ID, Cwd: s.Cwd, Name: s.Name, Parent: s.ParentSession,
					Modified: s.Modified, First: s.FirstMessage, Messages: s.Messages})
			}
			return out, saveErr
		},
		SessionText: func(path string) string {
			text, _ := session.MessageText(path)
			return text
		},
		RenameSession: func(path, name string) error {
			if cur, tr := current(); tr != nil && cur != "" && samePath(cur, path) {
				return tr.SetName(name)
			}
			if err := insideSessions(l.AgentDir, dir, path); err != nil {
				return err
			}
			tr, err := session.OpenAppend(path)
			if err != nil {
				return err
			}
			if err := tr.SetName(name); err != nil {
				tr.Close()
				return err
			}
			return tr.Close()
		},
		DeleteSession: func(path string) (bool, error) {
			if cur, _ := current(); cur != "" && samePath(cur, path) {
				return false, errors.New("Cannot delete the currently active session")
			}
			if err := insideSessions(l.AgentDir, dir, path); err != nil {
				return false, err
			}
			return deleteSessionFile(path)
		},
	}
}

func samePath(a, b string) bool { return filepath.Clean(a) == filepath.Clean(b) }

// insideSessions refuses a file the picker did not list from a sessions
// directory: it must be a .jsonl file in dir, or in the default layout in
// a folder of the agent dir's sessions/.
func insideSessions(agentDir, dir, path string) error {
	if !strings.HasSuffix(path, ".jsonl") {
		return fmt.Errorf("%s is not a session file", path)
	}
	parent := filepath.Clean(filepath.Dir(path))
	if parent == filepath.Clean(dir) {
		return nil
	}
	root := filepath.Join(agentDir, "sessions")
	if filepath.Clean(filepath.Dir(parent)) == filepath.Clean(root) {
		return nil
	}
	return fmt.Errorf("%s is not in a sessions directory", path)
}

// deleteSessionFile removes a session file as the established harness
// does: through the trash command when there is one (the file can be
// brought back), else for good. trashed says which happened.
func deleteSessionFile(path string) (bool, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return false, err
	}
	if !fi.Mode().IsRegular() && fi.Mode()&os.ModeSymlink == 0 {
		return false, fmt.Errorf("%s is not a file", path)
	}
	var trashErr string
	if bin, err := exec.LookPath("trash"); err == nil {
		out, err := exec.Command(bin, path).CombinedOutput()
		if _, statErr := os.Lstat(path); err == nil || errors.Is(statErr, os.ErrNotExist) {
			return true, nil
		}
		trashErr = strings.TrimSpace(firstOf(string(out)))
	}
	if err := os.Remove(path); err != nil {
		if trashErr != "" {
			return false, fmt.Errorf("%w (trash: %s)", err, trashErr)
		}
		return false, err
	}
	return false, nil
}

func firstOf(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// pickAtStart runs pi -r's picker before the session starts and returns
// the chosen file and the directory the session belongs to ("" when it is
// this one, or when that directory no longer exists: the session then
// continues here).
func (a *app) pickAtStart(ctx context.Context, c *common, r *runFlags) (path, cwd string, err error) {
	l, err := a.load(c)
	if err != nil {
		return "", "", err
	}
	h := a.pickerHost(l, a.sessionsDir(l, r.sessionDir), func() (string, *session.Transcript) { return "", nil })
	h.Keys = func() *keybind.Bindings { return uiKeys(l.Keybindings) }
	th := &themeHost{a: a, flags: &r.peer.themes}
	th.load(l) // its diagnostics are told when the session opens
	h.Themes, h.ThemeSetting, h.Appearance = func() *theme.Set { return th.set }, func() string { return th.setting(l) }, theme.EnvAppearance(a.getenv)
	path, err = ui.PickSession(ctx, h, a.stdin, a.stdout)
	if err != nil || path == "" {
		return "", "", err
	}
	s, ok := session.OpenLister("").Summary(path)
	if ok && s.Cwd != "" && !samePath(s.Cwd, l.Cwd) {
		if fi, err := os.Stat(s.Cwd); err == nil && fi.IsDir() {
			cwd = s.Cwd
		}
	}
	return path, cwd, nil
}
