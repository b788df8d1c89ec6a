package packages

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/piwasm/pi/internal/atomicfile"
)

// LockName is the lock file in the agent dir.
const LockName = "pi-packages.json"

// Entry is one installed package.
type Entry struct {
	Name    string `json:"name"`
	Source  string `json:"source"`
	Kind    string `json:"kind"`
	Version string `json:"version,omitempty"`
	// Commit pins a git source.
	Commit string `json:"commit,omitempty"`
	// SHA256 is the installed module's.
	SHA256 string `json:"sha256"`
	// Dir is where it is installed; Project is the project directory for
	// a project install ("" for the user's).
	Dir       string `json:"dir"`
	Project   string `json:"project,omitempty"`
	Installed string `json:"installed"`
}

// Lock is the set of installed packages.
type Lock struct {
	path    string
	Entries []Entry `json:"packages"`
}

// ReadLock reads the lock of agentDir (empty when there is none).
func ReadLock(agentDir string) (*Lock, error) {
	l := &Lock{path: filepath.Join(agentDir, LockName)}
	b, err := os.ReadFile(l.path)
	if errors.Is(err, os.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, l); err != nil {
		return nil, fmt.Errorf("%s: %w (move it aside to start a new one)", l.path, err)
	}
	return l, nil
}

// Path is the lock file's path.
func (l *Lock) Path() string { return l.path }

// Find returns the entry installed under name in project ("" = the user's).
func (l *Lock) Find(name, project string) (Entry, bool) {
	for _, e := range l.Entries {
		if e.Name == name && e.Project == project {
			return e, true
		}
	}
	return Entry{}, false
}

// Put adds or replaces the entry of e's name and project.
func (l *Lock) Put(e Entry) {
	l.Remove(e.Name, e.Project)
	l.Entries = append(l.Entries, e)
	sort.Slice(l.Entries, func(i, j int) bool {
		if l.Entries[i].Project != l.Entries[j].Project {
			return l.Entries[i].Project < l.Entries[j].Project
		}
		return l.Entries[i].Name < l.Entries[j].Name
	})
}

// Remove drops the entry of name in project; false when there was none.
func (l *Lock) Remove(name, project string) bool {
	for i, e := range l.Entries {
		if e.Name == name && e.Project == project {
			l.Entries = append(l.Entries[:i], l.Entries[i+1:]...)
			return true
		}
	}
	return false
}

// Save writes the lock (0600: it says what runs on this machine).
func (l *Lock) Save() error {
	if err := os.MkdirAll(filepath.Dir(l.path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(l.path, append(b, '\n'), 0o600)
}

// FindSource returns the entry installed from source in project.
func (l *Lock) FindSource(source, project string) (Entry, bool) {
	for _, e := range l.Entries {
		if e.Source == source && e.Project == project {
			return e, true
		}
	}
	return Entry{}, false
}
