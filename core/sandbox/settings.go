package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/piwasm/pi/core/settings"
	"path/filepath"
	"strings"
)

// Settings is the "sandbox" object of settings.json:
//
//	"sandbox": {
//	  "mode": "workspace",          // or "read-only", "off"
//	  "network": true,              // false (or "off") refuses IPv4/IPv6 sockets;
//	                                // {"allow": ["github.com", "*.npmjs.org"]}
//	                                // reaches only those hosts (netallow.go)
//	  "require": false,             // true refuses to run unconfined
//	  "writableRoots": ["~/.m2", "../shared"],
//	  "protectedPaths": [".husky", "!.vscode"],
//	  "denyRead": ["~/.npmrc", "!~/.docker"],
//	  "passEnv": ["OPENAI_API_KEY"]
//	}
//
// Every key is optional. Relative roots and denyRead paths resolve against
// the directory of the settings file that lists them, relative
// protectedPaths against the working tree, "~" against the home
// directory. A leading "!" removes a path from the list (a default
// included) instead of adding it.
type Settings struct {
	Mode    string `json:"mode,omitempty"`
	Network *bool  `json:"network,omitempty"`
	// NetAllow is the network allow-list ({"allow": [...]}), normalized;
	// non-nil only when the setting is an allow-list (Network is then nil).
	NetAllow      []string `json:"-"`
	Require       bool     `json:"require,omitempty"`
	WritableRoots []Root   `json:"writableRoots,omitempty"`
	// Protected are additions to (and, marked remove, removals from) the
	// protected paths; Path is absolute or relative to the working tree.
	Protected []Root `json:"protectedPaths,omitempty"`
	// DenyRead are additions to (and removals from) the read deny list.
	DenyRead []Root `json:"denyRead,omitempty"`
	// PassEnv names provider-key variables commands may see after all
	// (pi leaves them out of commands' environment otherwise).
	PassEnv []string `json:"passEnv,omitempty"`
}

type settingsJSON struct {
	Mode           *string         `json:"mode"`
	Network        json.RawMessage `json:"network"`
	Require        *bool           `json:"require"`
	WritableRoots  []string        `json:"writableRoots"`
	ProtectedPaths []string        `json:"protectedPaths"`
	DenyRead       []string        `json:"denyRead"`
	PassEnv        []string        `json:"passEnv"`
}

// parseSettings reads the value of the "sandbox" key of the settings file
// file. Unknown keys are an error, so a misspelt key does not silently
// leave the default in force.
func parseSettings(raw []byte, file, home string) (Settings, error) {
	var s Settings
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return s, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var sj settingsJSON
	if err := dec.Decode(&sj); err != nil {
		return s, fmt.Errorf("%s: sandbox: %v", file, err)
	}
	if sj.Mode != nil {
		if _, err := parseMode(*sj.Mode); err != nil {
			return s, fmt.Errorf("%s: sandbox.mode: %v", file, err)
		}
		s.Mode = *sj.Mode
	}
	if len(sj.Network) > 0 && string(sj.Network) != "null" {
		var b bool
		var str string
		switch {
		case json.Unmarshal(sj.Network, &b) == nil:
		case json.Unmarshal(sj.Network, &str) == nil && (str == "on" || str == "off"):
			b = str == "on"
		case bytes.HasPrefix(sj.Network, []byte("{")):
			allow, err := parseNetworkObject(sj.Network)
			if err != nil {
				return s, &badAllowListError{fmt.Errorf("%s: sandbox.network: %v; commands get no network until it is fixed", file, err)}
			}
			s.NetAllow = allow
		default:
			return s, fmt.Errorf("%s: sandbox.network: want true, false, \"on\", \"off\" or {\"allow\": [\"host\", ...]}", file)
		}
		if s.NetAllow == nil {
			s.Network = &b
		}
	}
	if sj.Require != nil {
		s.Require = *sj.Require
	}
	dir := filepath.Dir(file)
	for _, r := range sj.WritableRoots {
		p, err := expandPath(r, dir, home)
		if err != nil {
			return s, fmt.Errorf("%s: sandbox.writableRoots: %v", file, err)
		}
		s.WritableRoots = append(s.WritableRoots, Root{Path: p, Reason: "settings: " + file})
	}
	for _, r := range sj.ProtectedPaths {
		raw, remove := strings.CutPrefix(r, "!")
		p := raw
		switch {
		case raw == "":
			return s, fmt.Errorf("%s: sandbox.protectedPaths: empty path", file)
		case raw == "~" || strings.HasPrefix(raw, "~/"):
			p = filepath.Join(home, raw[1:])
		}
		s.Protected = append(s.Protected, Root{Path: filepath.Clean(p), Reason: "settings: " + file, remove: remove})
	}
	for _, r := range sj.DenyRead {
		raw, remove := strings.CutPrefix(r, "!")
		if filepath.Clean(raw) == string(filepath.Separator) {
			return s, fmt.Errorf("%s: sandbox.denyRead: \"/\" would hide everything", file)
		}
		p, err := expandPath(raw, dir, home)
		if err != nil {
			return s, fmt.Errorf("%s: sandbox.denyRead: %v", file, err)
		}
		s.DenyRead = append(s.DenyRead, Root{Path: p, Reason: "settings: " + file, remove: remove})
	}
	for _, name := range sj.PassEnv {
		if name == "" || strings.ContainsAny(name, "= \t\n") {
			return s, fmt.Errorf("%s: sandbox.passEnv: %q is not an environment variable name", file, name)
		}
		s.PassEnv = append(s.PassEnv, name)
	}
	return s, nil
}

// badAllowListError marks a sandbox.network allow-list pi cannot read.
type badAllowListError struct{ error }

func (e *badAllowListError) Unwrap() error { return e.error }

// parseNetworkObject reads {"allow": [...]}, refusing other keys.
func parseNetworkObject(raw json.RawMessage) ([]string, error) {
	var obj struct {
		Allow *[]string `json:"allow"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	if obj.Allow == nil {
		return nil, errors.New("an object needs \"allow\": a list of host names")
	}
	list, err := parseAllowList(*obj.Allow)
	if err != nil {
		return nil, fmt.Errorf("allow: %v", err)
	}
	return list, nil
}

func expandPath(p, dir, home string) (string, error) {
	switch {
	case p == "":
		return "", errors.New("empty path")
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home == "" {
			return "", fmt.Errorf("%q: no home directory", p)
		}
		p = filepath.Join(home, p[1:])
	case !filepath.IsAbs(p):
		p = filepath.Join(dir, p)
	}
	if filepath.Clean(p) == string(filepath.Separator) {
		return "", errors.New("\"/\" is not accepted as a writable root; use \"mode\": \"off\" to turn the sandbox off")
	}
	return filepath.Clean(p), nil
}

// Merge layers over on top of s: scalars that over sets win, writable
// roots add up. The network setting is one value: a later file's true or
// false replaces an allow-list, and an allow-list replaces true or false;
// two allow-lists add up, like the writable roots (a trusted project can
// already set "network": true, so adding hosts gives it nothing more).
func (s Settings) Merge(over Settings) Settings {
	if over.Mode != "" {
		s.Mode = over.Mode
	}
	switch {
	case over.NetAllow != nil && s.NetAllow != nil:
		s.NetAllow = appendNew(append([]string(nil), s.NetAllow...), over.NetAllow)
	case over.NetAllow != nil:
		s.Network, s.NetAllow = nil, over.NetAllow
	case over.Network != nil:
		s.Network, s.NetAllow = over.Network, nil
	}
	if over.Require {
		s.Require = true
	}
	s.WritableRoots = append(append([]Root(nil), s.WritableRoots...), over.WritableRoots...)
	s.Protected = append(append([]Root(nil), s.Protected...), over.Protected...)
	s.DenyRead = append(append([]Root(nil), s.DenyRead...), over.DenyRead...)
	s.PassEnv = append(append([]string(nil), s.PassEnv...), over.PassEnv...)
	return s
}

// appendNew appends the strings of add that list lacks.
func appendNew(list, add []string) []string {
	for _, a := range add {
		found := false
		for _, l := range list {
			found = found || l == a
		}
		if !found {
			list = append(list, a)
		}
	}
	return list
}

// LoadSettings merges the "sandbox" values of the settings files, as the
// settings model read them (global first, then the project's when it is
// trusted). A bad value yields an error naming the file, and that file's
// sandbox settings are left out.
func LoadSettings(values []settings.Value, home string) (Settings, []error) {
	var out Settings
	var errs []error
	for _, v := range values {
		s, err := parseSettings(v.Raw, v.File, home)
		if err != nil {
			errs = append(errs, err)
			var bad *badAllowListError
			if errors.As(err, &bad) {
				// Fail closed: a mistyped allow-list must not leave the
				// network fully on (the default).
				off := false
				out = out.Merge(Settings{Network: &off})
			}
			continue
		}
		out = out.Merge(s)
	}
	return out, errs
}
