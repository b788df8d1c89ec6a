package permission

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/piwasm/pi/core/settings"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/piwasm/pi/abi"
)

// pathTools are the tools whose patterns match resolved paths.
var pathTools = map[string]bool{"read": true, "edit": true, "write": true, "grep": true, "find": true, "ls": true}

// Rule is one parsed permission rule.
type Rule struct {
	// Tool is the tool name, lower case.
	Tool string
	// Pattern is the text between the parentheses; empty for a rule that
	// covers every call of the tool.
	Pattern string
	// Source is where the rule came from: a settings file, "session" for
	// an answer of "always", or whatever the caller set.
	Source string

	prefix []string // bash "words:*" form
	glob   string   // bash glob form, the expanded path glob, or an MCP argument glob
	argKey string   // an MCP rule's KEY=GLOB: the argument it matches
}

// String is the rule as written: tool or tool(pattern).
func (r Rule) String() string {
	if r.Pattern == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Pattern + ")"
}

// Paths says how path patterns are made absolute: "~/" against Home,
// relative patterns against Cwd.
type Paths struct {
	Home, Cwd string
}

// ParseRule parses "tool" or "tool(pattern)". Tool names are matched
// without regard to case (Bash(...) is bash(...)).
func ParseRule(s string, paths Paths) (Rule, error) {
	s = strings.TrimSpace(s)
	name, pattern := s, ""
	if i := strings.IndexByte(s, '('); i >= 0 {
		if !strings.HasSuffix(s, ")") {
			return Rule{}, fmt.Errorf("rule %q: a pattern must end with \")\"", s)
		}
		name, pattern = s[:i], s[i+1:len(s)-1]
		if strings.TrimSpace(pattern) == "" {
			return Rule{}, fmt.Errorf("rule %q: empty pattern (write %q to cover every call)", s, strings.ToLower(name))
		}
	}
	name = strings.ToLower(strings.TrimSpace(name))
	mcpTool := strings.HasPrefix(name, abi.MCPToolPrefix)
	if mcpTool && abi.ValidMCPToolName(name, true) != nil || !mcpTool && abi.ValidToolName(name) != nil {
		return Rule{}, fmt.Errorf("rule %q: %q is not a tool name", s, name)
	}
	r := Rule{Tool: name, Pattern: pattern}
	if pattern == "" {
		return r, nil
	}
	if mcpTool {
		return r, r.compileArgs()
	}
	if name == "bash" {
		return r, r.compileBash()
	}
	return r, r.compilePath(paths)
}

func (r *Rule) compileBash() error {
	p := strings.TrimSpace(r.Pattern)
	if strings.HasSuffix(p, ":*") {
		words := strings.Fields(strings.TrimSuffix(p, ":*"))
		if cs, err := Commands(strings.TrimSuffix(p, ":*")); err == nil && len(cs) == 1 {
			words = cs[0].Words
		}
		if len(words) == 0 {
			return fmt.Errorf("rule %q: no command before \":*\"", r.String())
		}
		r.prefix = words
		return nil
	}
	r.glob = strings.Join(strings.Fields(p), " ")
	return nil
}

func (r *Rule) compilePath(paths Paths) error {
	p := r.Pattern
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if paths.Home == "" {
			return fmt.Errorf("rule %q: no home directory for ~", r.String())
		}
		p = paths.Home + p[1:]
	case !filepath.IsAbs(p):
		if paths.Cwd == "" {
			return fmt.Errorf("rule %q: a relative pattern needs a working directory", r.String())
		}
		p = filepath.Join(paths.Cwd, p)
	}
	p = filepath.ToSlash(filepath.Clean(p))
	if strings.HasSuffix(r.Pattern, "/") {
		p += "/**"
	}
	if !doublestar.ValidatePattern(p) {
		return fmt.Errorf("rule %q: bad glob pattern", r.String())
	}
	// Resolve symlinks in the pattern's fixed leading directories, so the
	// rule matches the resolved paths the tools report.
	baseDir, rest := doublestar.SplitPattern(p)
	if real, err := filepath.EvalSymlinks(filepath.FromSlash(baseDir)); err == nil && rest != "" {
		p = filepath.ToSlash(real) + "/" + rest
	} else if err == nil && !strings.ContainsAny(p, "*?[{") {
		p = filepath.ToSlash(real)
	}
	r.glob = p
	return nil
}

// matchWords reports whether the rule's bash pattern matches words.
func (r *Rule) matchWords(words []string) bool {
	if r.prefix != nil {
		if len(words) < len(r.prefix) {
			return false
		}
		for i, w := range r.prefix {
			if words[i] != w {
				return false
			}
		}
		return true
	}
	return globMatch(r.glob, strings.Join(words, " "))
}

// forTool reports whether the rule is for the tool named tool (lower
// case): its name, or for MCP tools a name with '*' (mcp__github__*).
func (r *Rule) forTool(tool string) bool {
	if r.Tool == tool {
		return true
	}
	return strings.HasPrefix(r.Tool, abi.MCPToolPrefix) && strings.Contains(r.Tool, "*") && globMatch(r.Tool, tool)
}

// compileArgs reads an MCP tool rule's pattern: KEY=GLOB matches the
// argument KEY (a string as it is, anything else as compact JSON);
// a pattern without '=' matches all the arguments as compact JSON with
// sorted keys. '*' and '?' are wildcards, as in bash patterns.
func (r *Rule) compileArgs() error {
	p := strings.TrimSpace(r.Pattern)
	if k, v, ok := strings.Cut(p, "="); ok && k != "" && !strings.ContainsAny(k, "{}\":*? ") {
		r.argKey, r.glob = k, v
		return nil
	}
	r.glob = p
	return nil
}

// matchArgs reports whether an MCP tool rule's pattern matches args, the
// call's arguments as compact JSON.
func (r *Rule) matchArgs(args string) bool {
	if !strings.HasPrefix(r.Tool, abi.MCPToolPrefix) || r.glob == "" && r.argKey == "" {
		return false
	}
	if r.argKey == "" {
		return globMatch(r.glob, args)
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &m) != nil {
		return false
	}
	raw, ok := m[r.argKey]
	if !ok {
		return false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return globMatch(r.glob, s)
	}
	return globMatch(r.glob, string(raw))
}

// matchPath reports whether the rule's path pattern matches a resolved path.
func (r *Rule) matchPath(path string) bool {
	if path == "" {
		return false
	}
	ok, _ := doublestar.Match(r.glob, filepath.ToSlash(path))
	return ok
}

// globMatch matches s against a pattern where * is any run of characters
// (spaces included), ? one character and \ quotes the next one. It runs in
// linear time in practice (the classic backtrack-to-last-star walk).
func globMatch(pattern, s string) bool {
	p, i := 0, 0
	starP, starI := -1, 0
	for i < len(s) {
		if p < len(pattern) {
			switch c := pattern[p]; {
			case c == '*':
				starP, starI = p, i
				p++
				continue
			case c == '?':
				p++
				i++
				continue
			case c == '\\' && p+1 < len(pattern):
				if pattern[p+1] == s[i] {
					p += 2
					i++
					continue
				}
			case c == s[i]:
				p++
				i++
				continue
			}
		}
		if starP < 0 {
			return false
		}
		starI++
		p, i = starP+1, starI
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// Rules are the three lists from settings, in the order they were read.
type Rules struct {
	Allow, Ask, Deny []Rule
}

type rulesJSON struct {
	Allow []string `json:"allow"`
	Ask   []string `json:"ask"`
	Deny  []string `json:"deny"`
}

// ParseRules reads the value of the "permissions" key of the settings file
// file. A bad rule is reported (naming the file) and left out; the others
// still apply. An unknown key is an error, so "denny" is not ignored.
func ParseRules(raw []byte, file string, paths Paths) (Rules, []error) {
	var rs Rules
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return rs, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var rj rulesJSON
	if err := dec.Decode(&rj); err != nil {
		return rs, []error{fmt.Errorf("%s: permissions: %v", file, err)}
	}
	var errs []error
	parse := func(list []string, kind string) []Rule {
		var out []Rule
		for _, s := range list {
			r, err := ParseRule(s, paths)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: permissions.%s: %v", file, kind, err))
				continue
			}
			r.Source = file
			out = append(out, r)
		}
		return out
	}
	rs.Allow = parse(rj.Allow, "allow")
	rs.Ask = parse(rj.Ask, "ask")
	rs.Deny = parse(rj.Deny, "deny")
	return rs, errs
}

// Merge appends more's rules to rs's.
func (rs Rules) Merge(more Rules) Rules {
	return Rules{
		Allow: append(append([]Rule(nil), rs.Allow...), more.Allow...),
		Ask:   append(append([]Rule(nil), rs.Ask...), more.Ask...),
		Deny:  append(append([]Rule(nil), rs.Deny...), more.Deny...),
	}
}

// LoadRules merges the "permissions" values of the settings files, as the
// settings model read them (global first, then the project's when
// trusted); problems name the file.
func LoadRules(values []settings.Value, paths Paths) (Rules, []error) {
	var out Rules
	var errs []error
	for _, v := range values {
		rs, es := ParseRules(v.Raw, v.File, paths)
		errs = append(errs, es...)
		out = out.Merge(rs)
	}
	return out, errs
}
