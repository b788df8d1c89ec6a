package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// FileName is the configuration file's name, in the agent dir and in a
// project's .pi directory.
const FileName = "mcp.json"

// Exposure says how a server's tools reach the model. The names and the
// default are the established harness's; see docs/mcp.md for what pi, which
// has neither codemode nor tool_search, does with each.
type Exposure string

// Exposures.
const (
	Codemode Exposure = "codemode"
	Deferred Exposure = "deferred"
	Direct   Exposure = "direct"
	Hidden   Exposure = "hidden"
)

// DefaultExposure is the established harness's default.
const DefaultExposure = Codemode

// parseExposure accepts the four modes and the alias codemode-deferred.
func parseExposure(s string) (Exposure, bool) {
	switch Exposure(s) {
	case Codemode, Deferred, Direct, Hidden:
		return Exposure(s), true
	}
	if s == "codemode-deferred" {
		return Codemode, true
	}
	return "", false
}

// DefaultTimeout is a request's deadline when the entry sets none.
const DefaultTimeout = 60 * time.Second

// ToolExposure is one entry of toolExposure: a server tool name, or a
// pattern where '*' matches any run of characters, and its mode.
type ToolExposure struct {
	Pattern  string
	Exposure Exposure
}

// Sandbox is pi's own "sandbox" key of a stdio entry (the established
// harness ignores keys it does not know): what the server may do beyond
// the default of writing its state directory and the temp dir, offline.
type Sandbox struct {
	// Network lets the server open IPv4 and IPv6 sockets.
	Network bool `json:"network,omitempty"`
	// WritableRoots are more directories it may write (~ and relative
	// paths as for cwd).
	WritableRoots []string `json:"writableRoots,omitempty"`
}

// OAuth is an HTTP entry's "oauth" object.
type OAuth struct {
	ClientID              string `json:"clientId,omitempty"`
	ClientSecret          string `json:"clientSecret,omitempty"`
	CallbackPort          int    `json:"callbackPort,omitempty"`
	CallbackURL           string `json:"callbackUrl,omitempty"`
	ClientName            string `json:"clientName,omitempty"`
	ClientRegistration    string `json:"clientRegistration,omitempty"`
	Scope                 string `json:"scope,omitempty"`
	AuthServerMetadataURL string `json:"authServerMetadataUrl,omitempty"`
}

// Server is one effective mcpServers entry.
type Server struct {
	Name string
	// Transport is "stdio" or "http" (streamable HTTP).
	Transport string
	// Stdio.
	Command string
	Args    []string
	Env     [][2]string // in file order; values may hold ${VAR} or !command
	Cwd     string      // absolute
	// HTTP.
	URL     string
	Headers [][2]string
	OAuth   *OAuth
	// Both.
	Timeout      time.Duration
	Enabled      bool
	Exposure     Exposure
	ToolExposure []ToolExposure
	Description  string
	Sandbox      Sandbox
	// Source is the file that defines the entry; Scope is "global" or
	// "project" (the established harness's words). Override is the project
	// file that changed enabled or exposure of a global entry, if any.
	Source, Scope, Override string
}

// ExposureOf is the effective exposure of the server tool named remote:
// an exact toolExposure key, else the first matching pattern, else the
// server's.
func (s *Server) ExposureOf(remote string) Exposure {
	for _, te := range s.ToolExposure {
		if te.Pattern == remote {
			return te.Exposure
		}
	}
	for _, te := range s.ToolExposure {
		if strings.Contains(te.Pattern, "*") && globMatch(te.Pattern, remote) {
			return te.Exposure
		}
	}
	return s.Exposure
}

// Problem is a configuration problem: the file, the server (if any) and
// what is wrong. Invalid entries are left out; the rest still connect.
type Problem struct {
	File    string `json:"file"`
	Server  string `json:"server,omitempty"`
	Message string `json:"message"`
	// Warning marks a problem that did not invalidate the entry (a key pi
	// does not know).
	Warning bool `json:"warning,omitempty"`
}

func (p Problem) String() string {
	if p.Server != "" {
		return fmt.Sprintf("%s: server %q: %s", p.File, p.Server, p.Message)
	}
	return fmt.Sprintf("%s: %s", p.File, p.Message)
}

// Config is the merged configuration.
type Config struct {
	// Servers in order: the global file's, then the project's new ones.
	Servers  []*Server
	Problems []Problem
}

// Get returns the server named name.
func (c *Config) Get(name string) *Server {
	for _, s := range c.Servers {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Paths says where the files are and how relative paths resolve.
type Paths struct {
	AgentDir string
	// ProjectDir is the project's .pi directory; its mcp.json is read only
	// when Trusted.
	ProjectDir string
	Trusted    bool
	// Cwd resolves relative cwd values; Home expands a leading ~/.
	Cwd, Home string
}

// GlobalFile and ProjectFile are the two configuration files.
func (p Paths) GlobalFile() string  { return filepath.Join(p.AgentDir, FileName) }
func (p Paths) ProjectFile() string { return filepath.Join(p.ProjectDir, FileName) }

// Load reads the global file and, for a trusted project, the project's.
// A missing file is no servers. A project entry replaces the global entry
// of its name, except that an entry with no command, url or type only
// overrides enabled, exposure and toolExposure of the global one.
func Load(p Paths) *Config {
	c := &Config{}
	global := readFile(p.GlobalFile(), "global", p, c)
	c.Servers = global
	if !p.Trusted || p.ProjectDir == "" {
		return c
	}
	for _, ps := range readFileOverrides(p.ProjectFile(), p, c) {
		if ps.override != nil {
			g := c.Get(ps.name)
			if g == nil {
				c.Problems = append(c.Problems, Problem{File: p.ProjectFile(), Server: ps.name, Message: `needs either "command" (stdio) or "url" (streamable HTTP): there is no global server of that name to override`})
				continue
			}
			o := ps.override
			if o.enabled != nil {
				g.Enabled = *o.enabled
			}
			if o.exposure != "" {
				g.Exposure = o.exposure
			}
			if o.toolExposure != nil {
				g.ToolExposure = o.toolExposure
			}
			g.Override = p.ProjectFile()
			continue
		}
		replaced := false
		for i, g := range c.Servers {
			if sameName(g.Name, ps.server.Name) {
				c.Servers[i] = ps.server
				replaced = true
			}
		}
		if !replaced {
			c.Servers = append(c.Servers, ps.server)
		}
	}
	return c
}

// sameName: names that differ only in '-' and '_' are the same server,
// since both map to the same tool names.
func sameName(a, b string) bool {
	return strings.ReplaceAll(a, "-", "_") == strings.ReplaceAll(b, "-", "_")
}

func readFile(file, scope string, p Paths, c *Config) []*Server {
	var out []*Server
	for _, ps := range parseFile(file, scope, p, c, false) {
		out = append(out, ps.server)
	}
	return out
}

func readFileOverrides(file string, p Paths, c *Config) []parsed {
	return parseFile(file, "project", p, c, true)
}

type override struct {
	enabled      *bool
	exposure     Exposure
	toolExposure []ToolExposure
}

type parsed struct {
	name     string
	server   *Server
	override *override
}

func parseFile(file, scope string, p Paths, c *Config, allowOverride bool) []parsed {
	data, err := os.ReadFile(file)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.Problems = append(c.Problems, Problem{File: file, Message: err.Error()})
		}
		return nil
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	top, err := decodeObject(data)
	if err != nil {
		c.Problems = append(c.Problems, Problem{File: file, Message: "invalid JSON: " + err.Error()})
		return nil
	}
	var servers []member
	for _, m := range top {
		switch m.Key {
		case "mcpServers":
			if servers, err = decodeObject(m.Value); err != nil {
				c.Problems = append(c.Problems, Problem{File: file, Message: `"mcpServers" must be an object`})
				return nil
			}
		case "autoEnableCodemode":
			// Understood and without effect: pi has no codemode tool.
			var b bool
			if json.Unmarshal(m.Value, &b) != nil {
				c.Problems = append(c.Problems, Problem{File: file, Message: `"autoEnableCodemode" must be true or false`})
			}
		default:
			c.Problems = append(c.Problems, Problem{File: file, Message: fmt.Sprintf("unknown key %q (ignored)", m.Key), Warning: true})
		}
	}
	var out []parsed
	seen := map[string]string{}
	for _, m := range servers {
		if prev, ok := seen[strings.ReplaceAll(m.Key, "-", "_")]; ok {
			c.Problems = append(c.Problems, Problem{File: file, Server: m.Key, Message: fmt.Sprintf("is the same server as %q (names that differ only in '-' and '_' name the same tools); left out", prev)})
			continue
		}
		seen[strings.ReplaceAll(m.Key, "-", "_")] = m.Key
		ps, probs := parseServer(m.Key, m.Value, file, scope, p, allowOverride)
		c.Problems = append(c.Problems, probs...)
		if ps != nil {
			out = append(out, *ps)
		}
	}
	return out
}

// parseServer validates one entry. It returns nil and the problems when
// the entry is invalid.
func parseServer(name string, raw json.RawMessage, file, scope string, p Paths, allowOverride bool) (*parsed, []Problem) {
	var probs []Problem
	bad := func(format string, a ...any) (*parsed, []Problem) {
		return nil, append(probs, Problem{File: file, Server: name, Message: fmt.Sprintf(format, a...)})
	}
	if !validServerName(name) {
		return bad(`invalid server name (use letters, digits, "_" and "-")`)
	}
	fields, err := decodeObject(raw)
	if err != nil {
		return bad("must be an object")
	}
	s := &Server{Name: name, Source: file, Scope: scope, Enabled: true, Exposure: DefaultExposure, Timeout: DefaultTimeout}
	var typ string
	var enabled *bool
	var exposureSet, toolExposureSet bool
	str := func(m member, dst *string) error {
		if json.Unmarshal(m.Value, dst) != nil {
			return fmt.Errorf("%q must be a string", m.Key)
		}
		return nil
	}
	for _, m := range fields {
		var err error
		switch m.Key {
		case "type":
			err = str(m, &typ)
		case "command":
			err = str(m, &s.Command)
			if err == nil && strings.TrimSpace(s.Command) == "" {
				err = errors.New(`"command" is empty`)
			}
		case "args":
			if json.Unmarshal(m.Value, &s.Args) != nil {
				err = errors.New(`"args" must be an array of strings`)
			}
		case "env":
			s.Env, err = stringMap(m)
		case "cwd":
			err = str(m, &s.Cwd)
		case "url":
			err = str(m, &s.URL)
		case "headers":
			s.Headers, err = stringMap(m)
		case "oauth":
			dec := json.NewDecoder(bytes.NewReader(m.Value))
			dec.DisallowUnknownFields()
			s.OAuth = &OAuth{}
			if e := dec.Decode(s.OAuth); e != nil {
				err = fmt.Errorf(`"oauth": %v`, e)
			}
		case "timeout":
			var secs float64
			if json.Unmarshal(m.Value, &secs) != nil || secs <= 0 || math.IsInf(secs, 0) || secs > 86400 {
				err = errors.New(`"timeout" must be a positive number of seconds`)
			} else {
				s.Timeout = time.Duration(secs * float64(time.Second))
			}
		case "enabled":
			var b bool
			if json.Unmarshal(m.Value, &b) != nil {
				err = errors.New(`"enabled" must be true or false`)
			}
			enabled = &b
			s.Enabled = b
		case "exposure":
			var v string
			if err = str(m, &v); err == nil {
				e, ok := parseExposure(v)
				if !ok {
					err = fmt.Errorf(`"exposure" %q: want codemode, deferred, direct or hidden`, v)
				}
				s.Exposure, exposureSet = e, true
			}
		case "toolExposure":
			s.ToolExposure, err = toolExposures(m.Value)
			toolExposureSet = true
		case "description":
			err = str(m, &s.Description)
		case "sandbox":
			dec := json.NewDecoder(bytes.NewReader(m.Value))
			dec.DisallowUnknownFields()
			if e := dec.Decode(&s.Sandbox); e != nil {
				err = fmt.Errorf(`"sandbox": %v (it takes "network" and "writableRoots")`, e)
			}
		default:
			probs = append(probs, Problem{File: file, Server: name, Message: fmt.Sprintf("unknown key %q (ignored)", m.Key), Warning: true})
		}
		if err != nil {
			return bad("%v", err)
		}
	}
	if typ == "sse" {
		return bad("the legacy SSE transport is not supported; use the server's streamable HTTP URL (often /mcp instead of /sse)")
	}
	if typ != "" && typ != "stdio" && typ != "http" && typ != "streamable-http" {
		return bad(`"type" %q: want stdio, http or streamable-http`, typ)
	}
	switch {
	case s.URL != "" && (typ == "" || typ == "http" || typ == "streamable-http"):
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad(`"url" %q must be an http or https URL`, s.URL)
		}
		s.Transport = "http"
	case s.Command != "" && (typ == "" || typ == "stdio"):
		s.Transport = "stdio"
		s.Command = expandTilde(s.Command, p.Home)
		for i, a := range s.Args {
			s.Args[i] = expandTilde(a, p.Home)
		}
		cwd := p.Cwd
		if s.Cwd != "" {
			cwd = expandTilde(s.Cwd, p.Home)
			if !filepath.IsAbs(cwd) {
				cwd = filepath.Join(p.Cwd, cwd)
			}
		}
		s.Cwd = filepath.Clean(cwd)
		for i, r := range s.Sandbox.WritableRoots {
			r = expandTilde(r, p.Home)
			if !filepath.IsAbs(r) {
				r = filepath.Join(p.Cwd, r)
			}
			s.Sandbox.WritableRoots[i] = filepath.Clean(r)
		}
	case allowOverride && s.Command == "" && s.URL == "" && typ == "":
		o := &override{enabled: enabled}
		if exposureSet {
			o.exposure = s.Exposure
		}
		if toolExposureSet {
			o.toolExposure = s.ToolExposure
			if o.toolExposure == nil {
				o.toolExposure = []ToolExposure{}
			}
		}
		return &parsed{name: name, override: o}, probs
	default:
		return bad(`needs either "command" (stdio) or "url" (streamable HTTP)`)
	}
	return &parsed{name: name, server: s}, probs
}

func validServerName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func expandTilde(s, home string) string {
	if home != "" && strings.HasPrefix(s, "~/") {
		return filepath.Join(home, s[2:])
	}
	return s
}

func stringMap(m member) ([][2]string, error) {
	members, err := decodeObject(m.Value)
	if err != nil {
		return nil, fmt.Errorf("%q must be an object of strings", m.Key)
	}
	out := make([][2]string, 0, len(members))
	for _, kv := range members {
		var v string
		if json.Unmarshal(kv.Value, &v) != nil {
			return nil, fmt.Errorf("%q: %q must be a string", m.Key, kv.Key)
		}
		out = append(out, [2]string{kv.Key, v})
	}
	return out, nil
}

func toolExposures(raw json.RawMessage) ([]ToolExposure, error) {
	members, err := decodeObject(raw)
	if err != nil {
		return nil, errors.New(`"toolExposure" must be an object of tool names or patterns and modes`)
	}
	var out []ToolExposure
	for _, m := range members {
		var v string
		if json.Unmarshal(m.Value, &v) != nil {
			return nil, fmt.Errorf(`"toolExposure": %q must be a mode`, m.Key)
		}
		e, ok := parseExposure(v)
		if !ok {
			return nil, fmt.Errorf(`"toolExposure": %q: %q is not codemode, deferred, direct or hidden`, m.Key, v)
		}
		out = append(out, ToolExposure{Pattern: m.Key, Exposure: e})
	}
	return out, nil
}

// member is one key of a JSON object, in file order.
type member struct {
	Key   string
	Value json.RawMessage
}

// decodeObject reads a JSON object keeping its keys' order, which
// toolExposure's "first pattern wins" and a rewritten file need.
func decodeObject(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not an object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		replaced := false
		for i := range out {
			if out[i].Key == key {
				out[i].Value = v // the last duplicate wins, as in JSON.parse
				replaced = true
			}
		}
		if !replaced {
			out = append(out, member{Key: key, Value: v})
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("text after the object")
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("text after the object")
	}
	return out, nil
}

// globMatch: '*' matches any run of characters; everything else is literal.
func globMatch(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}
