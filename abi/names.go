package abi

import "fmt"

// The naming rules for sections, runtime contexts, variables and tools live here
// and nowhere else: the prompt builder, settings.json, --section and
// extension ops are all checked with them, so the rule cannot drift between
// the layers. They live in abi rather than in core/prompt because abi is
// what a guest compiles against (pi ext init ships abi's sources, and the
// SDK can validate names before a host sees them), while the prompt core is
// host-only; abi imports nothing of pi's but core/termtext, so the prompt
// core and resources can depend on it without a cycle.

// ValidContextName reports whether name may name a runtime context, or a
// section an extension addresses: it must match ^[a-z][a-z0-9_-]*$.
func ValidContextName(name string) error {
	if !isName(name, true) {
		return fmt.Errorf("invalid name %q: names start with a lowercase letter and use only a-z, 0-9, '_' and '-'", name)
	}
	return nil
}

// ValidSectionName reports whether name may name an extra section: it must
// match ^[a-z][a-z0-9_-]*$ and must not be "preamble".
func ValidSectionName(name string) error {
	if name == "preamble" {
		return fmt.Errorf("section name %q is reserved for the built-in preamble", name)
	}
	if !isName(name, true) {
		return fmt.Errorf("invalid section name %q: names start with a lowercase letter and use only a-z, 0-9, '_' and '-'", name)
	}
	return nil
}

// ValidVariableName reports whether name may name a variable: it must match
// ^[a-z][a-z0-9_]*$ (no '-', so a reference cannot be read as a subtraction
// by a template author).
func ValidVariableName(name string) error {
	if !isName(name, false) {
		return fmt.Errorf("invalid variable name %q: names match ^[a-z][a-z0-9_]*$", name)
	}
	return nil
}

// maxToolName bounds a tool name: providers refuse longer function names.
const maxToolName = 64

// ValidToolName reports whether name may name a tool the model calls: it
// must match ^[a-z][a-z0-9_]*$ and be at most 64 bytes. Built-in tools,
// extension tools and permission rules all use this one rule.
func ValidToolName(name string) error {
	if !isName(name, false) || len(name) > maxToolName {
		return fmt.Errorf("tool name %q must match ^[a-z][a-z0-9_]*$ (at most %d characters)", name, maxToolName)
	}
	return nil
}

// MCPToolPrefix starts the name of every tool pi takes from an MCP server.
// It is the established harness's namespace: such names are reserved for
// the MCP client, and only they follow [ValidMCPToolName].
const MCPToolPrefix = "mcp__"

// ValidMCPToolName reports whether name may name a tool of an MCP server:
// "mcp__" and then letters of either case, digits and '_', at most 64 bytes.
// Servers name tools in camelCase, and the established harness keeps the
// case when it builds mcp__<server>__<tool> (mapping every other character
// to '_'), so these names keep it too; every other tool follows
// [ValidToolName]. With pattern set, '*' is allowed as well (a permission
// rule such as mcp__github__*).
func ValidMCPToolName(name string, pattern bool) error {
	ok := len(name) > len(MCPToolPrefix) && len(name) <= maxToolName && name[:len(MCPToolPrefix)] == MCPToolPrefix
	for i := len(MCPToolPrefix); ok && i < len(name); i++ {
		c := name[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || pattern && c == '*'
	}
	if !ok {
		return fmt.Errorf("MCP tool name %q must match ^mcp__[A-Za-z0-9_]+$ (at most %d characters)", name, maxToolName)
	}
	return nil
}

// isName is ^[a-z][a-z0-9_]*$ (with '-' too when dash is set) without the
// regexp machinery: interpolation runs it once per reference.
func isName(s string, dash bool) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || dash && c == '-') {
			return false
		}
	}
	return true
}
