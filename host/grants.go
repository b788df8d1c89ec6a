package host

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/internal/atomicfile"
)

// Grant is what the user allowed one extension to use. It is pinned to the
// module's SHA-256: a grant whose SHA256 differs from the loaded module's is
// stale and grants nothing. An empty SHA256 (for example a grant given on
// the command line for one run) applies to whatever module is loaded.
//
// Items are granted individually: a file glob, host or variable name is
// granted when it appears here exactly as the manifest requests it.
type Grant struct {
	SHA256  string   `json:"sha256,omitempty"`
	Files   []string `json:"files,omitempty"`
	Network []string `json:"network,omitempty"`
	Env     []string `json:"env,omitempty"`
	Clock   bool     `json:"clock,omitempty"`
	Random  bool     `json:"random,omitempty"`
	// Exec lets a TypeScript extension run commands (child_process,
	// pi.exec) through pi's sandboxed bash; WebAssembly extensions
	// cannot ask for it.
	Exec bool `json:"exec,omitempty"`
}

// GrantAll returns a grant of everything m requests, pinned to sha.
func GrantAll(m abi.Manifest, sha string) Grant {
	c := m.Capabilities
	return Grant{
		SHA256:  sha,
		Files:   slices.Clone(c.Files),
		Network: slices.Clone(c.Network),
		Env:     slices.Clone(c.Env),
		Clock:   c.Clock,
		Random:  c.Random,
	}
}

// Grants maps extension names to their grants.
type Grants map[string]Grant

// Merge returns g with the grants of over added; for a name present in
// both, over's grant wins.
func (g Grants) Merge(over Grants) Grants {
	out := make(Grants, len(g)+len(over))
	for k, v := range g {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// EffectiveGrant is the rule the runtime applies: it intersects what a
// module with the given SHA-256 requests with what g grants (ok: a grant
// exists). A grant pinned to another module grants nothing (stale); each
// item is granted only when listed exactly as requested. It returns the
// granted capabilities and the requested ones left ungranted.
func EffectiveGrant(req abi.Capabilities, g Grant, ok bool, sha string) (granted, missing abi.Capabilities, stale bool) {
	return effective(req, g, ok, sha)
}

func effective(req abi.Capabilities, g Grant, ok bool, sha string) (granted, missing abi.Capabilities, stale bool) {
	if ok && g.SHA256 != "" && g.SHA256 != sha {
		return abi.Capabilities{}, req, true
	}
	if !ok {
		return abi.Capabilities{}, req, false
	}
	split := func(want, have []string) (in, out []string) {
		for _, w := range want {
			if slices.Contains(have, w) {
				in = append(in, w)
			} else {
				out = append(out, w)
			}
		}
		return
	}
	granted.Files, missing.Files = split(req.Files, g.Files)
	granted.Network, missing.Network = split(req.Network, g.Network)
	granted.Env, missing.Env = split(req.Env, g.Env)
	granted.Clock, missing.Clock = req.Clock && g.Clock, req.Clock && !g.Clock
	granted.Random, missing.Random = req.Random && g.Random, req.Random && !g.Random
	return
}

func describeCaps(c abi.Capabilities) string { return strings.Join(c.Items(), ", ") }

// GrantsFile is the file name of the grant store in the agent directory.
const GrantsFile = "grants.json"

// GrantStore is the persistent record of grants, kept as JSON in
// <agentDir>/grants.json and keyed by extension name. It is safe for
// concurrent use; changes are written by Save.
type GrantStore struct {
	path string
	mu   sync.Mutex
	m    Grants
}

type grantsFile struct {
	Version int    `json:"version"`
	Grants  Grants `json:"grants"`
}

// OpenGrantStore reads <agentDir>/grants.json. A missing file is an empty
// store; a malformed one is an error.
func OpenGrantStore(agentDir string) (*GrantStore, error) {
	s := &GrantStore{path: filepath.Join(agentDir, GrantsFile), m: Grants{}}
	b, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	var f grantsFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", s.path, err)
	}
	if f.Grants != nil {
		s.m = f.Grants
	}
	return s, nil
}

// Path returns the store's file path.
func (s *GrantStore) Path() string { return s.path }

// Grants returns a copy of all stored grants.
func (s *GrantStore) Grants() Grants {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Grants{}.Merge(s.m)
}

// Get returns the stored grant of the extension name.
func (s *GrantStore) Get(name string) (Grant, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.m[name]
	return g, ok
}

// Set records g for the extension name (replacing any earlier grant).
func (s *GrantStore) Set(name string, g Grant) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[name] = g
}

// Remove forgets the grant of the extension name.
func (s *GrantStore) Remove(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, name)
}

// Save writes the store atomically and durably (internal/atomicfile), mode 0600,
// creating the agent directory if needed.
func (s *GrantStore) Save() error {
	s.mu.Lock()
	f := grantsFile{Version: 1, Grants: Grants{}.Merge(s.m)}
	s.mu.Unlock()
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(s.path, append(b, '\n'), 0o600)
}
