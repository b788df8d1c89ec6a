package main

import (
	"context"
	"fmt"
	"github.com/piwasm/pi/core/settings"
	"strings"
	"text/tabwriter"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/core/session"
	"github.com/spf13/pflag"
)

type resourcesJSON struct {
	Cwd          string               `json:"cwd"`
	AgentDir     string               `json:"agentDir"`
	ContextFiles []pathJSON           `json:"contextFiles"`
	SystemPrompt *sourceJSON          `json:"systemPrompt,omitempty"`
	Append       []sourceJSON         `json:"appendSystemPrompt"`
	Skills       []skillJSON          `json:"skills"`
	Templates    []templateJSON       `json:"templates"`
	Settings     []string             `json:"settingsFiles"`
	Sections     []settingsSection    `json:"settingsSections"`
	Values       []settings.Entry     `json:"settings"`
	Trust        resources.TrustState `json:"trust"`
	Extensions   []extensionJSON      `json:"extensions"`
	Commands     []commandJSON        `json:"commands"`
	Prompt       []sectionJSON        `json:"promptSections"`
	Diagnostics  []diag.Diagnostic    `json:"diagnostics"`
	// Packages are the installed packages of the established format the
	// settings declare, with what each contributes.
	Packages []resources.Package `json:"packages"`
}

// sectionJSON is one section of the prompt the next request would carry,
// after the extensions' hooks ran.
type sectionJSON struct {
	Name   string  `json:"name"`
	Order  float64 `json:"order"`
	Source string  `json:"source"`
	Bytes  int     `json:"bytes"`
}

type pathJSON struct {
	Path  string `json:"path"`
	Bytes int    `json:"bytes"`
}

type sourceJSON struct {
	Source string `json:"source"`
	Bytes  int    `json:"bytes"`
}

type skillJSON struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Path        string `json:"path"`
	Visible     bool   `json:"visible"`
	Source      string `json:"source"`
}

type templateJSON struct {
	Name         string `json:"name"`
	Description  string `json:"description"`
	ArgumentHint string `json:"argumentHint"`
	Path         string `json:"path"`
}

type settingsSection struct {
	Name   string   `json:"name"`
	Order  *float64 `json:"order,omitempty"`
	Source string   `json:"source"`
	Bytes  int      `json:"bytes"`
}

type extensionJSON struct {
	Name      string           `json:"name"`
	Version   string           `json:"version"`
	Dir       string           `json:"dir"`
	Hooks     []string         `json:"hooks"`
	Requested abi.Capabilities `json:"requested"`
	Granted   abi.Capabilities `json:"granted"`
	SHA256    string           `json:"sha256"`
}

type commandJSON struct {
	Name         string `json:"name"`
	Extension    string `json:"extension"`
	Description  string `json:"description,omitempty"`
	ArgumentHint string `json:"argumentHint,omitempty"`
}

func (a *app) cmdResources(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("resources", pflag.ContinueOnError)
	var c common
	c.register(fs)
	rest, err := c.parse(fs, args)
	if err != nil {
		return a.helpOr(err, "pi resources [flags]", fs)
	}
	if len(rest) > 0 {
		return usagef("resources takes no arguments")
	}
	w, err := a.prepareWorld(ctx, &c)
	if err != nil {
		return err
	}
	defer w.ext.close(ctx)
	l := w.loaded
	out := resourcesJSON{Cwd: l.Cwd, AgentDir: l.AgentDir, Trust: l.Trust, Settings: l.Settings.Files,
		ContextFiles: []pathJSON{}, Append: []sourceJSON{}, Skills: []skillJSON{}, Templates: []templateJSON{},
		Sections: []settingsSection{}, Extensions: []extensionJSON{}, Commands: []commandJSON{}, Packages: l.Packages}
	if out.Packages == nil {
		out.Packages = []resources.Package{}
	}
	for _, f := range l.ContextFiles {
		out.ContextFiles = append(out.ContextFiles, pathJSON{Path: f.Path, Bytes: len(f.Content)})
	}
	if l.CustomPrompt != "" {
		out.SystemPrompt = &sourceJSON{Source: l.CustomPromptSource, Bytes: len(l.CustomPrompt)}
	}
	for i, s := range l.AppendSources {
		n := 0
		if i < len(l.AppendParts) {
			n = len(l.AppendParts[i])
		}
		out.Append = append(out.Append, sourceJSON{Source: s, Bytes: n})
	}
	for _, s := range l.Skills {
		out.Skills = append(out.Skills, skillJSON{Name: s.Name, Description: s.Description, Path: s.FilePath, Visible: s.Visible(), Source: s.Source})
	}
	for _, t := range l.Templates {
		out.Templates = append(out.Templates, templateJSON{Name: t.Name, Description: t.Description, ArgumentHint: t.ArgumentHint, Path: t.FilePath})
	}
	out.Values = l.Values.Dump()
	if out.Values == nil {
		out.Values = []settings.Entry{}
	}
	for _, s := range l.Settings.Sections {
		out.Sections = append(out.Sections, settingsSection{Name: s.Name, Order: s.Order, Source: s.Source, Bytes: len(s.Text)})
	}
	for _, x := range w.ext.exts {
		m := x.Manifest()
		out.Extensions = append(out.Extensions, extensionJSON{Name: m.Name, Version: m.Version, Dir: x.Dir(), Hooks: m.Hooks, Requested: m.Capabilities, Granted: x.Granted(), SHA256: x.SHA256()})
	}
	for _, cmd := range w.ext.dispatcher.Commands() {
		out.Commands = append(out.Commands, commandJSON{Name: cmd.Name, Extension: cmd.Handler.Name(), Description: cmd.Info.Description, ArgumentHint: cmd.Info.ArgumentHint})
	}
	out.Prompt = []sectionJSON{}
	p, err := session.Prepare(ctx, w.ext.dispatcher, w.opts, "")
	if err != nil {
		// The listing is still useful when the prompt cannot be built;
		// the reason joins the diagnostics.
		out.Diagnostics = append(out.Diagnostics, diag.Diagnostic{Kind: "error", Message: "building the prompt: " + err.Error()})
	} else {
		for _, sec := range p.Rendered.Sections {
			out.Prompt = append(out.Prompt, sectionJSON{Name: sec.Name, Order: sec.Order, Source: sec.Source, Bytes: len(sec.Text)})
		}
	}
	out.Diagnostics = append(out.Diagnostics, w.diagnostics()...)
	if out.Diagnostics == nil {
		out.Diagnostics = []diag.Diagnostic{}
	}
	if c.json {
		return writeJSON(a.stdout, out)
	}
	return printResources(a, out)
}

// trustLine says whether the project is trusted and why, without saying it
// twice when the reason already does ("untrusted by a stored decision").
func trustLine(trusted bool, reason string) string {
	if strings.HasPrefix(reason, "trusted") || strings.HasPrefix(reason, "untrusted") || strings.HasPrefix(reason, "not trusted") {
		return reason
	}
	state := "not trusted"
	if trusted {
		state = "trusted"
	}
	if reason == "" {
		return state
	}
	return state + ": " + reason
}

func printResources(a *app, r resourcesJSON) error {
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "project\t%s (%s)\n", esc(r.Cwd), esc(trustLine(r.Trust.Trusted, r.Trust.Reason)))
	fmt.Fprintf(tw, "agent dir\t%s\n", esc(r.AgentDir))
	section := func(title string, n int) {
		fmt.Fprintf(tw, "\n%s (%d)\n", title, n)
	}
	section("context files", len(r.ContextFiles))
	for _, f := range r.ContextFiles {
		fmt.Fprintf(tw, "  %s\t%d bytes\n", esc(f.Path), f.Bytes)
	}
	section("prompt sources", len(r.Append)+boolInt(r.SystemPrompt != nil))
	if r.SystemPrompt != nil {
		fmt.Fprintf(tw, "  system prompt\t%s\t%d bytes\n", esc(r.SystemPrompt.Source), r.SystemPrompt.Bytes)
	}
	for _, s := range r.Append {
		fmt.Fprintf(tw, "  append\t%s\t%d bytes\n", esc(s.Source), s.Bytes)
	}
	section("skills", len(r.Skills))
	for _, s := range r.Skills {
		vis := "visible"
		if !s.Visible {
			vis = "hidden (disable-model-invocation)"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", esc(s.Name), vis, esc(s.Path), esc(truncate(s.Description, 60)))
	}
	section("prompt templates", len(r.Templates))
	for _, t := range r.Templates {
		fmt.Fprintf(tw, "  /%s %s\t%s\t%s\n", esc(t.Name), esc(t.ArgumentHint), esc(t.Path), esc(t.Description))
	}
	section("settings files", len(r.Settings))
	for _, f := range r.Settings {
		fmt.Fprintf(tw, "  %s\n", esc(f))
	}
	for _, s := range r.Sections {
		fmt.Fprintf(tw, "  section %s\t%s\t%d bytes\n", esc(s.Name), esc(s.Source), s.Bytes)
	}
	section("settings in force", len(r.Values))
	for _, v := range r.Values {
		where := v.File
		if v.Line > 0 {
			where = fmt.Sprintf("%s:%d", v.File, v.Line)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", esc(v.Name), esc(truncate(string(v.Value), 60)), v.Status, esc(where))
	}
	section("extensions", len(r.Extensions))
	for _, x := range r.Extensions {
		fmt.Fprintf(tw, "  %s %s\t%s\t%s\n", esc(x.Name), esc(x.Version), strings.Join(escAll(x.Hooks), ","), esc(x.Dir))
	}
	for _, cmd := range r.Commands {
		fmt.Fprintf(tw, "  /%s %s\textension:%s\t%s\n", esc(cmd.Name), esc(cmd.ArgumentHint), esc(cmd.Extension), esc(cmd.Description))
	}
	section("prompt sections", len(r.Prompt))
	for _, sec := range r.Prompt {
		fmt.Fprintf(tw, "  %s\t%g\t%s\t%d bytes\n", esc(sec.Name), sec.Order, esc(sec.Source), sec.Bytes)
	}
	section("diagnostics", len(r.Diagnostics))
	if err := tw.Flush(); err != nil {
		return err
	}
	listDiagnostics(a.stdout, r.Diagnostics)
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func truncate(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
