package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/resources"
	"github.com/spf13/pflag"
)

var errHelp = errors.New("help shown")

// common holds the flags every prompt-building command takes.
type common struct {
	cwd               string
	systemPrompt      []string
	appendPrompt      []string
	tools             string
	noTools           bool
	noContextFiles    bool
	skills            []string
	noSkills          bool
	templates         []string
	noTemplates       bool
	approve           bool
	noApprove         bool
	json              bool
	sections          []string
	extensions        []string
	noExtensions      bool
	grants            []string
	verbose           bool
	noMemo            bool
	toolsSet          bool
	parsedSectionSpec []prompt.SectionSpec
}

func (c *common) register(fs *pflag.FlagSet) {
	fs.StringVar(&c.cwd, "cwd", "", "project directory (default: the current directory)")
	fs.StringArrayVar(&c.systemPrompt, "system-prompt", nil, "replace the default prompt with TEXT, or with the contents of the file TEXT names (last one wins)")
	fs.StringArrayVar(&c.appendPrompt, "append-system-prompt", nil, "append TEXT (or a file's contents) to the prompt; repeatable")
	fs.StringVar(&c.tools, "tools", "", "comma-separated tools to enable (default read,bash,edit,write)")
	fs.BoolVar(&c.noTools, "no-tools", false, "enable no tools")
	fs.BoolVar(&c.noContextFiles, "no-context-files", false, "do not load AGENTS.md / CLAUDE.md files")
	fs.StringArrayVar(&c.skills, "skill", nil, "load skills from PATH (file or directory); repeatable")
	fs.BoolVar(&c.noSkills, "no-skills", false, "load no skills except --skill paths")
	fs.StringArrayVar(&c.templates, "prompt-template", nil, "load prompt templates from PATH; repeatable")
	fs.BoolVar(&c.noTemplates, "no-prompt-templates", false, "load no prompt templates except --prompt-template paths")
	fs.BoolVarP(&c.approve, "approve", "a", false, "trust this project for this run (loads its .pi resources and extensions)")
	fs.BoolVar(&c.noApprove, "no-approve", false, "ignore project-local resources (short form -na)")
	fs.BoolVar(&c.json, "json", false, "print JSON for scripts")
	fs.StringArrayVar(&c.sections, "section", nil, "add a named section NAME=TEXT (source cli); repeatable")
	fs.StringArrayVarP(&c.extensions, "extension", "e", nil, "load the extension package at PATH; repeatable")
	fs.BoolVar(&c.noExtensions, "no-extensions", false, "do not discover extensions (explicit -e paths still load)")
	fs.StringArrayVar(&c.grants, "grant", nil, "grant a requested capability for this run: NAME (all it asks) or NAME:files|network|env|clock|random; repeatable")
	fs.BoolVarP(&c.verbose, "verbose", "v", false, "show extension log lines on stderr")
	fs.BoolVar(&c.noMemo, "no-memo", false, "run every extension hook even when a stored result for the same inputs exists")
}

// parse parses args and validates the common flags. It returns the
// positional arguments.
func (c *common) parse(fs *pflag.FlagSet, args []string) ([]string, error) {
	fs.SortFlags = false
	fs.SetOutput(new(strings.Builder))
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil, err
		}
		return nil, usagef("%v", err)
	}
	c.toolsSet = fs.Changed("tools")
	if c.noTools && c.toolsSet {
		return nil, usagef("--tools and --no-tools contradict each other")
	}
	if c.approve && c.noApprove {
		return nil, usagef("--approve and --no-approve contradict each other")
	}
	for _, s := range c.sections {
		name, text, ok := strings.Cut(s, "=")
		if !ok {
			return nil, usagef("--section %q: want NAME=TEXT", s)
		}
		if err := prompt.ValidSectionName(name); err != nil {
			return nil, usagef("--section: %v", err)
		}
		c.parsedSectionSpec = append(c.parsedSectionSpec, prompt.SectionSpec{Name: name, Text: text, Source: prompt.SourceCLI})
	}
	return fs.Args(), nil
}

// selectedTools returns the tool selection: nil for the default.
func (c *common) selectedTools() []string {
	if c.noTools {
		return []string{}
	}
	if !c.toolsSet {
		return nil
	}
	out := []string{}
	for _, t := range strings.Split(c.tools, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

func (a *app) resolveCwd(c *common) (string, error) {
	dir := c.cwd
	if dir == "" {
		dir = a.wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("working directory %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("working directory %s is not a directory", abs)
	}
	return abs, nil
}

func (a *app) agentDir() string { return resources.AgentDir(a.getenv, a.home) }

// load discovers resources for the common flags.
func (a *app) load(c *common) (*resources.Loaded, error) {
	cwd, err := a.resolveCwd(c)
	if err != nil {
		return nil, err
	}
	l, err := resources.Load(resources.Config{
		Cwd: cwd, AgentDir: a.agentDir(), Home: a.home,
		SystemPrompt: a.fromShell(c.systemPrompt), AppendSystemPrompt: a.fromShell(c.appendPrompt),
		NoContextFiles: c.noContextFiles, NoSkills: c.noSkills, NoPromptTemplates: c.noTemplates,
		SkillPaths: a.fromShell(c.skills), TemplatePaths: a.fromShell(c.templates), ExtensionPaths: a.fromShell(c.extensions),
		Approve: c.approve, NoApprove: c.noApprove,
	})
	if err != nil {
		return nil, fmt.Errorf("load resources: %w", err)
	}
	return l, nil
}

// fromShell makes relative path values that exist in the directory pi was
// started from absolute, so that `--system-prompt my.md --cwd elsewhere`
// reads ./my.md as the user typed it. Values that name nothing there are
// passed on unchanged: the loader resolves them against --cwd or, for the
// prompt flags, takes them as literal text.
func (a *app) fromShell(values []string) []string {
	if len(values) == 0 {
		return values
	}
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = v
		if v == "" || filepath.IsAbs(v) || strings.HasPrefix(v, "~") || strings.ContainsAny(v, "\n") {
			continue
		}
		p := filepath.Join(a.wd, v)
		if _, err := os.Stat(p); err == nil {
			out[i] = p
		}
	}
	return out
}
