package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/core/tool"
	"github.com/piwasm/pi/host"
	"github.com/spf13/pflag"
)

var errHelp = errors.New("help shown")

// common holds the flags every prompt-building command takes.
type common struct {
	// extUI answers extensions' questions (pi_ui_*): set by the
	// interactive and RPC modes; nil gives the default answers at once
	// (print and JSON mode) and writes notifications to stderr.
	extUI host.UI
	// extMode is what TypeScript extensions see as ctx.mode
	// ("interactive", "rpc"; "" is print).
	extMode string
	// extError, when set, hears of each extension hook failure that is
	// skipped, as it happens (RPC mode's extension_error): the package
	// directory, the hook and the cause.
	extError func(path, hook, msg string)
	// notice, when set, shows extension hooks' warnings and (--verbose)
	// log lines in the interactive session instead of on stderr, where
	// they would tear the drawn screen (see app.warner).
	notice func(string)
	// extFlags are the extension flags given on the command line (see
	// host.Config.Flags).
	extFlags          map[string]map[string]string
	cwd               string
	systemPrompt      []string
	appendPrompt      []string
	tools             []string
	excludeTools      []string
	noBuiltinTools    bool
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
	fs.StringSliceVarP(&c.tools, "tools", "t", nil, "tools to declare, comma-separated names or * patterns (default read,bash,edit,write); a list of only +name/-name changes the default set")
	fs.StringSliceVar(&c.excludeTools, "exclude-tools", nil, "tools to leave out, names or * patterns, after everything else (short form -xt)")
	fs.BoolVar(&c.noBuiltinTools, "no-builtin-tools", false, "declare no built-in tools; extension tools stay (short form -nbt)")
	fs.BoolVar(&c.noTools, "no-tools", false, "declare no tools at all (short form -nt)")
	fs.BoolVar(&c.noContextFiles, "no-context-files", false, "do not load AGENTS.md / CLAUDE.md files (short form -nc)")
	fs.StringArrayVar(&c.skills, "skill", nil, "load skills from PATH (file or directory); repeatable")
	fs.BoolVar(&c.noSkills, "no-skills", false, "load no skills except --skill paths (short form -ns)")
	fs.StringArrayVar(&c.templates, "prompt-template", nil, "load prompt templates from PATH; repeatable")
	fs.BoolVar(&c.noTemplates, "no-prompt-templates", false, "load no prompt templates except --prompt-template paths (short form -np)")
	fs.BoolVarP(&c.approve, "approve", "a", false, "trust this project for this run (loads its .pi resources and extensions)")
	fs.BoolVar(&c.noApprove, "no-approve", false, "ignore project-local resources (short form -na)")
	fs.BoolVar(&c.json, "json", false, "print JSON for scripts")
	fs.StringArrayVar(&c.sections, "section", nil, "add a named section NAME=TEXT (source cli); repeatable")
	fs.StringArrayVarP(&c.extensions, "extension", "e", nil, "load the extension package at PATH; repeatable")
	fs.BoolVar(&c.noExtensions, "no-extensions", false, "do not discover extensions; explicit -e paths still load (short form -ne)")
	fs.StringArrayVar(&c.grants, "grant", nil, "grant a requested capability for this run: NAME (all it asks) or NAME:files|network|env|clock|random; repeatable")
	fs.BoolVar(&c.verbose, "verbose", false, "show the whole start-up listing (over quietStartup) and extension log lines")
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
		if err := abi.ValidSectionName(name); err != nil {
			return nil, usagef("--section: %v", err)
		}
		c.parsedSectionSpec = append(c.parsedSectionSpec, prompt.SectionSpec{Name: name, Text: text, Source: prompt.SourceCLI})
	}
	return fs.Args(), nil
}

// selection is the tool selection the flags ask for.
func (c *common) selection() tool.Selection {
	s := tool.Selection{Exclude: trimAll(c.excludeTools), NoBuiltin: c.noBuiltinTools, NoTools: c.noTools}
	if c.toolsSet {
		s.Tools = trimAll(c.tools)
		if s.Tools == nil {
			s.Tools = []string{}
		}
	}
	return s
}

func trimAll(list []string) []string {
	var out []string
	for _, t := range list {
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
	if err := a.fetchOneOffs(c); err != nil {
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
