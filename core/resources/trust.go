package resources

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/piwasm/pi/internal/atomicfile"
)

// TrustFileName is the file in the agent dir that stores trust decisions.
const TrustFileName = "trust.json"

// TrustState says whether project-local resources (SYSTEM.md,
// APPEND_SYSTEM.md, skills, prompt templates, settings and extensions) load
// for this run, and why.
type TrustState struct {
	Trusted bool   `json:"trusted"`
	Reason  string `json:"reason"`
}

// trustFile is the on-disk form of trust.json:
//
//	{"projects": {"/abs/project": true, "/other": false}}
type trustFile struct {
	Projects map[string]bool `json:"projects"`
}

// projectKey is the key of a project in trust.json: its absolute, cleaned
// path.
func projectKey(project string) (string, error) {
	abs, err := filepath.Abs(project)
	if err != nil {
		return "", err
	}
	return filepath.Clean(abs), nil
}

func readTrustFile(agentDir string) (trustFile, string, error) {
	path := filepath.Join(agentDir, TrustFileName)
	tf := trustFile{}
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return tf, path, nil
		}
		return tf, path, err
	}
	if err := json.Unmarshal(data, &tf); err != nil {
		return trustFile{}, path, fmt.Errorf("invalid %s: %w", TrustFileName, err)
	}
	return tf, path, nil
}

// StoredTrust looks up the stored decision for project (a directory; made
// absolute) in agentDir/trust.json. found is false when there is none, or
// no file. A file that cannot be read or parsed is an error.
func StoredTrust(agentDir, project string) (trusted, found bool, err error) {
	key, err := projectKey(project)
	if err != nil {
		return false, false, err
	}
	tf, _, err := readTrustFile(agentDir)
	if err != nil {
		return false, false, err
	}
	trusted, found = tf.Projects[key]
	return trusted, found, nil
}

// SaveTrust records a trust decision for project (a directory; made
// absolute) in agentDir/trust.json, keeping other projects' decisions. It
// creates agentDir when needed and replaces the file atomically. A trust.json
// that exists but cannot be parsed is left alone and reported as an error.
func SaveTrust(agentDir, project string, trusted bool) error {
	key, err := projectKey(project)
	if err != nil {
		return err
	}
	tf, path, err := readTrustFile(agentDir)
	if err != nil {
		return err
	}
	if tf.Projects == nil {
		tf.Projects = map[string]bool{}
	}
	tf.Projects[key] = trusted
	data, err := json.MarshalIndent(tf, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if err := os.MkdirAll(agentDir, 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o600)
}

// TrustInput gathers what decides project trust. DefaultSource names the
// settings file that set Default, for the reason text.
type TrustInput struct {
	AgentDir      string
	Project       string
	Approve       bool
	NoApprove     bool
	Default       *bool
	DefaultSource string
}

// DecideTrust decides whether the project is trusted, in this order:
// NoApprove (never trusted; it wins over Approve), Approve (trusted for this
// run), the decision stored in trust.json, the global settings'
// defaultProjectTrust, and finally untrusted. An unreadable trust.json is
// reported and treated as holding no decision.
func DecideTrust(in TrustInput) (TrustState, []Diagnostic) {
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
		trusted, found, err := StoredTrust(in.AgentDir, in.Project)
		path := filepath.Join(in.AgentDir, TrustFileName)
		switch {
		case err != nil:
			ds.add(KindError, path, "cannot use stored trust decisions: %v", err)
		case found && trusted:
			return TrustState{Trusted: true, Reason: "trusted by a stored decision in " + path}, ds
		case found:
			return TrustState{Trusted: false, Reason: "untrusted by a stored decision in " + path}, ds
		}
	}
	if in.Default != nil {
		src := in.DefaultSource
		if src == "" {
			src = "settings"
		}
		if *in.Default {
			return TrustState{Trusted: true, Reason: "trusted by defaultProjectTrust in " + src}, ds
		}
		return TrustState{Trusted: false, Reason: "untrusted by defaultProjectTrust in " + src}, ds
	}
	return TrustState{Trusted: false, Reason: "not trusted: no stored decision (use --approve)"}, ds
}
