package main

import (
	"encoding/json"
	"fmt"
	"github.com/piwasm/pi/core/settings"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/host"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/tool"
	"github.com/piwasm/pi/core/tool/builtin"
)

// toolRegistry holds every tool pi can run in this process: the built-in
// ones over env. Extension tools join it when their extensions load.
func toolRegistry(env builtin.Env) (*tool.Registry, error) {
	r := tool.NewRegistry()
	for _, t := range builtin.Tools(env) {
		if err := r.Add(t); err != nil {
			return nil, fmt.Errorf("built-in tools: %w", err)
		}
	}
	return r, nil
}

// catalog describes a registry's tools to the prompt builder: snippets and
// guidelines for <tools> and <rules>, schemas for the request.
func catalog(r *tool.Registry) []prompt.Tool {
	names := r.Names()
	out := make([]prompt.Tool, 0, len(names))
	for _, n := range names {
		t, _ := r.Get(n)
		out = append(out, prompt.Tool{Name: t.Name, Snippet: t.Snippet, Guidelines: t.Guidelines, Description: t.Description, Parameters: t.Parameters})
	}
	return out
}

// selectTools applies the flags' selection to a registry, over the
// default tools of the settings (defaultTools) or the built-in defaults.
// A defaultTools entry naming a tool that is not registered is reported
// and skipped.
func selectTools(r *tool.Registry, c *common, v *settings.Settings) ([]string, []diag.Diagnostic, error) {
	defaults := prompt.DefaultTools()
	var diags []diag.Diagnostic
	if d, set := v.DefaultTools(); set {
		defaults = d
		for _, val := range v.Layers("defaultTools") {
			var names []string
			_ = json.Unmarshal(val.Raw, &names)
			for _, n := range names {
				n = strings.TrimLeft(n, "+-")
				if _, ok := r.Get(n); !ok && n != "" {
					diags = append(diags, diag.Diagnostic{Kind: settings.KindInvalid, Path: val.File, Line: val.Line,
						Message: fmt.Sprintf("defaultTools: pi has no tool %q (tools: %s); it is left out", n, strings.Join(r.Names(), ", "))})
				}
			}
		}
	}
	names, err := r.Select(c.selection(), defaults)
	if err != nil {
		return nil, diags, usagef("%v", err)
	}
	if names == nil {
		names = []string{}
	}
	return names, diags, nil
}

// addExtensionTools registers the tools the loaded extensions declare, in
// load order, after the built-in ones. A name that is already taken (by a
// built-in or an earlier extension's tool) is refused: the diagnostic
// names both sides, and the extension's other tools still register.
func addExtensionTools(r *tool.Registry, exts []*host.Extension, cwd string) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, x := range exts {
		for _, t := range x.Tools(cwd) {
			if err := r.Add(t); err != nil {
				out = append(out, diag.Diagnostic{Kind: host.DiagDuplicate, Path: filepath.Join(x.Dir(), abi.ManifestFile), Extension: x.Name(),
					Message: fmt.Sprintf("%v; the extension's tool is not registered", err)})
			}
		}
	}
	return out
}
