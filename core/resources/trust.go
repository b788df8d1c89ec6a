package resources

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/internal/atomicfile"
)

// TrustFileName is the file in the agent dir that stores trust decisions.
const TrustFileName = "trust.json"

// TrustState says whether project-local resources (SYSTEM.md,
// APPEND_SYSTEM.md, skills, prompt templates, settings and extensions) load
// for this run, and why: Reason names what decided, without repeating
// whether it said yes or no (callers print "trusted: <reason>").
type TrustState struct {
	Trusted bool   `json:"trusted"`
	Reason  string `json:"reason"`
}

// trust.json is shared with the TypeScript harness, which owns the format:
// one JSON object mapping an absolute, symlink-resolved directory to true
// (trusted), false (untrusted) or null (no decision at this level). A
// decision covers the directory and everything below it; the nearest
// directory with a true or false value decides.
//
//	{
//	  "/home/me/work": true,
//	  "/home/me/work/scratch": false
//	}
//
// Earlier versions of pi wrote {"projects": {"/abs": true}}. That form is
// still read, and rewritten in the shared form the next time pi saves a
// decision (it holds nothing the shared form cannot say). Anything else —
// bad JSON, other value types — is reported and never overwritten.
type trustStore struct {
	path      string
	decisions map[string]*bool // nil value: JSON null
	legacy    bool
}

// canonicalDir is the key of a directory in trust.json: absolute, cleaned,
// with symlinks resolved when the directory exists (as the other harness
// keys it).
func canonicalDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	return filepath.Clean(abs), nil
}

// sameTrustKey compares two keys the way the other harness does: exactly, except
// case-insensitively on Windows.
func sameTrustKey(a, b string) bool {
	if runtime.GOOS == "windows" {
		return strings.EqualFold(filepath.Clean(a), filepath.Clean(b))
	}
	return filepath.Clean(a) == filepath.Clean(b)
}

// parseTrustStore reads the content of a trust.json (shared or legacy
// form). The error names the problem but not the file.
func parseTrustStore(data []byte) (map[string]*bool, bool, error) {
	data = bytes.TrimPrefix(data, []byte(bom))
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, false, errors.New("expected a JSON object")
		}
		return nil, false, err
	}
	if top == nil {
		return nil, false, errors.New("expected a JSON object")
	}
	out := map[string]*bool{}
	if raw, ok := top["projects"]; ok && len(top) == 1 {
		// pi's legacy form: {"projects": {dir: bool}}.
		var legacy map[string]bool
		if err := json.Unmarshal(raw, &legacy); err == nil && legacy != nil {
			for k, v := range legacy {
				out[k] = &v
			}
			return out, true, nil
		}
	}
	for k, raw := range top {
		switch s := string(bytes.TrimSpace(raw)); s {
		case "true", "false":
			v := s == "true"
			out[k] = &v
		case "null":
			out[k] = nil
		default:
			return nil, false, fmt.Errorf("value for %q must be true, false or null", k)
		}
	}
	return out, false, nil
}

func readTrustStore(agentDir string) (*trustStore, error) {
	st := &trustStore{path: filepath.Join(agentDir, TrustFileName), decisions: map[string]*bool{}}
	data, err := os.ReadFile(st.path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return st, nil
		}
		return nil, fmt.Errorf("cannot read %s: %w", st.path, err)
	}
	st.decisions, st.legacy, err = parseTrustStore(data)
	if err != nil {
		return nil, fmt.Errorf("invalid trust store %s: %w", st.path, err)
	}
	return st, nil
}

// nearest finds the decision that applies to dir: the one stored for dir or
// its nearest ancestor. key is the entry that decided.
func (st *trustStore) nearest(dir string) (trusted bool, key string, found bool) {
	for cur := dir; ; {
		for k, v := range st.decisions {
			if v != nil && sameTrustKey(k, cur) {
				return *v, k, true
			}
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return false, "", false
		}
		cur = parent
	}
}

// set records decision for dir (nil removes dir's entry), replacing any
// entry that names the same directory.
func (st *trustStore) set(dir string, decision *bool) {
	for k := range st.decisions {
		if sameTrustKey(k, dir) {
			delete(st.decisions, k)
		}
	}
	if decision != nil {
		v := *decision
		st.decisions[dir] = &v
	}
}

// encode renders the store as the other harness writes it: keys sorted,
// two-space indent, a final newline, no HTML escaping.
func (st *trustStore) encode() ([]byte, error) {
	keys := make([]string, 0, len(st.decisions))
	for k := range st.decisions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	if len(keys) == 0 {
		return []byte("{}\n"), nil
	}
	b.WriteString("{\n")
	for i, k := range keys {
		var kb bytes.Buffer
		enc := json.NewEncoder(&kb)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(k); err != nil {
			return nil, err
		}
		b.WriteString("  ")
		b.Write(bytes.TrimRight(kb.Bytes(), "\n"))
		b.WriteString(": ")
		switch v := st.decisions[k]; {
		case v == nil:
			b.WriteString("null")
		case *v:
			b.WriteString("true")
		default:
			b.WriteString("false")
		}
		if i < len(keys)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}\n")
	return b.Bytes(), nil
}

// TrustDecision is a stored decision that applies to a directory: Dir is
// the entry that decided (the directory itself or an ancestor).
type TrustDecision struct {
	Trusted bool
	Dir     string
}

// LookupTrust finds the stored decision that applies to project (its own
// entry or its nearest ancestor's) in agentDir/trust.json. found is false
// when there is none, or no file. A file that cannot be read or is not a
// trust store is an error naming the file.
func LookupTrust(agentDir, project string) (d TrustDecision, found bool, err error) {
	dir, err := canonicalDir(project)
	if err != nil {
		return d, false, err
	}
	st, err := readTrustStore(agentDir)
	if err != nil {
		return d, false, err
	}
	d.Trusted, d.Dir, found = st.nearest(dir)
	return d, found, nil
}

// StoredTrust is [LookupTrust] without the deciding directory.
func StoredTrust(agentDir, project string) (trusted, found bool, err error) {
	d, found, err := LookupTrust(agentDir, project)
	return d.Trusted, found, err
}

// SaveTrust records a trust decision for project (a directory; made
// absolute, symlinks resolved) in agentDir/trust.json, keeping every other
// entry. See [UpdateTrust].
func SaveTrust(agentDir, project string, trusted bool) error {
	return UpdateTrust(agentDir, project, &trusted)
}

// UpdateTrust sets (or, with a nil decision, removes) project's own entry in
// agentDir/trust.json under the lock the other harness also takes
// (trust.json.lock), creating agentDir when needed and replacing the file
// atomically. A trust.json that exists but is
// not a trust store is left alone and reported as an error.
func UpdateTrust(agentDir, project string, decision *bool) error {
	dir, err := canonicalDir(project)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(agentDir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(agentDir, TrustFileName)
	unlock, err := lockTrust(path, 5*time.Second)
	if err != nil {
		return err
	}
	defer unlock()
	st, err := readTrustStore(agentDir)
	if err != nil {
		return fmt.Errorf("%w (left unchanged; fix or remove it)", err)
	}
	st.set(dir, decision)
	data, err := st.encode()
	if err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o644)
}

// lockTrust takes the lock the other harness uses around trust.json (the
// proper-lockfile convention: a directory named trust.json.lock, stale after
// ten seconds without an update), waiting up to wait for a live holder.
func lockTrust(path string, wait time.Duration) (func(), error) {
	lock := path + ".lock"
	const stale = 10 * time.Second
	deadline := time.Now().Add(wait)
	for {
		err := os.Mkdir(lock, 0o755)
		if err == nil {
			return func() { _ = os.Remove(lock) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", lock, err)
		}
		if fi, serr := os.Stat(lock); serr == nil && time.Since(fi.ModTime()) > stale {
			_ = os.Remove(lock)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s is locked by another process (remove %s if none is running)", path, lock)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// trustInput gathers what decides project trust. Default is the global
// settings' defaultProjectTrust: nil for "ask" (the default), true for
// "always", false for "never". DefaultSource names the settings file that
// set it, for the reason text.
type trustInput struct {
	AgentDir      string
	Project       string
	Approve       bool
	NoApprove     bool
	Default       *bool
	DefaultSource string
}

// decideTrust decides whether the project is trusted, in this order:
// NoApprove (never trusted; it wins over Approve), Approve (trusted for this
// run), the decision stored in trust.json for the project or its nearest
// ancestor, the global settings' defaultProjectTrust ("always" or "never"),
// and finally untrusted (the "ask" default, with nobody to ask). An
// unreadable trust.json is reported and treated as holding no decision.
func decideTrust(in trustInput) (TrustState, []diag.Diagnostic) {
	var ds diagnostics
	switch {
	case in.NoApprove:
		if in.Approve {
			ds.add(KindWarning, "", "--approve and --no-approve both given; --no-approve wins")
		}
		return TrustState{Trusted: false, Reason: "project-local resources ignored (--no-approve)"}, ds
	case in.Approve:
		return TrustState{Trusted: true, Reason: "approved for this run (--approve)"}, ds
	}
	if in.AgentDir != "" && in.Project != "" {
		d, found, err := LookupTrust(in.AgentDir, in.Project)
		path := filepath.Join(in.AgentDir, TrustFileName)
		where := path
		if found {
			if pd, perr := canonicalDir(in.Project); perr == nil && !sameTrustKey(pd, d.Dir) {
				where = fmt.Sprintf("%s (for %s)", path, d.Dir)
			}
		}
		switch {
		case err != nil:
			ds.add(KindError, path, "stored trust decisions not used: %v", err)
		case found && d.Trusted:
			return TrustState{Trusted: true, Reason: "saved decision in " + where}, ds
		case found:
			return TrustState{Trusted: false, Reason: "saved decision in " + where}, ds
		}
	}
	if in.Default != nil {
		src := in.DefaultSource
		if src == "" {
			src = "settings"
		}
		if *in.Default {
			return TrustState{Trusted: true, Reason: `defaultProjectTrust "always" in ` + src}, ds
		}
		return TrustState{Trusted: false, Reason: `defaultProjectTrust "never" in ` + src}, ds
	}
	return TrustState{Trusted: false, Reason: "no saved decision; `pi trust` saves one, --approve trusts one run"}, ds
}
