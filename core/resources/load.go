package resources

import (
	"errors"
	"path/filepath"
	"slices"

	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/core/keybind"
	"github.com/piwasm/pi/core/settings"
)

// Config is the input of [Load]: the working directory, the agent dir and
// home directory (callers pass them in; Load reads no environment), and the
// command-line options that affect resources.
//
// AgentDir defaults to Home/.pi/agent (see [AgentDir]) when empty; with both
// empty there is no agent dir. Paths in SkillPaths, TemplatePaths,
// ExtensionPaths and prompt flag values are resolved against Cwd, with `~`
// expanded against Home.
type Config struct {
	Cwd, AgentDir, Home string

	SystemPrompt       []string // --system-prompt values; the last one wins
	AppendSystemPrompt []string // --append-system-prompt values, in order

	NoContextFiles    bool // --no-context-files
	NoSkills          bool // --no-skills: only SkillPaths load
	NoPromptTemplates bool // --no-prompt-templates: only TemplatePaths load

	SkillPaths     []string // --skill
	TemplatePaths  []string // --prompt-template
	ExtensionPaths []string // --extension

	Approve   bool // --approve: trust the project for this run
	NoApprove bool // --no-approve: ignore project-local resources

	// Registry is the set of known settings keys ([settings.Builtin] when
	// nil).
	Registry *settings.Registry
}

// Loaded is everything [Load] found. All paths are absolute.
//
// CustomPromptSource is the file the custom prompt came from, "cli" for
// literal flag text, or "" when there is none. AppendParts and AppendSources
// run in parallel; AppendPrompt is the parts joined with a blank line.
// ExtensionDirs are candidate extension package directories in load order.
// Diagnostics holds every problem met, in the order met.
type Loaded struct {
	Cwd        string `json:"cwd"`
	AgentDir   string `json:"agentDir"`
	ProjectDir string `json:"projectDir"`

	ContextFiles []ContextFile `json:"contextFiles"`

	CustomPrompt       string   `json:"customPrompt,omitempty"`
	CustomPromptSource string   `json:"customPromptSource,omitempty"`
	AppendPrompt       string   `json:"appendPrompt,omitempty"`
	AppendParts        []string `json:"-"`
	AppendSources      []string `json:"appendSources,omitempty"`

	Skills    []Skill    `json:"skills"`
	Templates []Template `json:"templates"`
	// DisabledSkills and DisabledTemplates were found but turned off by a
	// settings filter ("-path", "!glob"); pi config lists them.
	DisabledSkills    []Skill    `json:"-"`
	DisabledTemplates []Template `json:"-"`

	Settings Settings `json:"settings"`
	// Values is the settings model of this load: every key of the
	// settings files, merged, for the packages that act on them.
	Values        *settings.Settings `json:"-"`
	Trust         TrustState         `json:"trust"`
	ExtensionDirs []string           `json:"extensionDirs"`
	// Packages are the installed packages of the established format the
	// settings declare; their skills and prompts are among Skills and
	// Templates, their extension entry files among ExtensionDirs.
	Packages    []Package         `json:"packages,omitempty"`
	Diagnostics []diag.Diagnostic `json:"diagnostics"`
	// Keybindings is what the agent dir's keybindings.json sets (its
	// problems are among Diagnostics).
	Keybindings keybind.Config `json:"-"`
}

// VisibleSkills returns the skills the model is told about.
func (l *Loaded) VisibleSkills() []Skill {
	var out []Skill
	for _, s := range l.Skills {
		if s.Visible() {
			out = append(out, s)
		}
	}
	return out
}

// ErrNoCwd is returned by [Load] when Config.Cwd is empty.
var ErrNoCwd = errors.New("resources: no working directory given")

// Load discovers and reads every resource for a run in cfg.Cwd:
//
//  1. global settings (agent dir settings.json);
//  2. project trust (see [decideTrust]; defaultProjectTrust comes from the
//     global settings only);
//  3. project settings (.pi/settings.json), when trusted, layered over the
//     global ones (see [mergeSettings]);
//  4. context files, unless NoContextFiles (see [findContextFiles]);
//  5. the custom and appended system prompt (see [promptFiles]);
//  6. skills (see [findSkills]) and prompt templates (see [findTemplates]);
//  7. extension package directories (see [findExtensionDirs]).
//
// Problems never stop loading: each becomes a diagnostic and the rest still
// loads. Project-local resources passed over because the project is not
// trusted are reported with kind "skipped". The only error is a missing or
// unusable Cwd.
func Load(cfg Config) (*Loaded, error) {
	if cfg.Cwd == "" {
		return nil, ErrNoCwd
	}
	cwd, err := filepath.Abs(cfg.Cwd)
	if err != nil {
		return nil, err
	}
	agentDir := cfg.AgentDir
	if agentDir == "" && cfg.Home != "" {
		agentDir = AgentDir(nil, cfg.Home)
	}
	if agentDir != "" {
		agentDir = resolvePath(agentDir, cwd, cfg.Home)
	}
	l := &Loaded{Cwd: cwd, AgentDir: agentDir, ProjectDir: ProjectDir(cwd)}
	var ds diagnostics
	collect := func(d []diag.Diagnostic) { ds = append(ds, d...) }

	// Settings and trust.
	reg := cfg.Registry
	if reg == nil {
		reg = settings.Builtin()
	}
	var layers []settings.Layer
	var global Settings
	var globalFile string
	if agentDir != "" {
		globalFile = filepath.Join(agentDir, settingsFileName)
		var d []diag.Diagnostic
		var layer *settings.Layer
		global, layer, d = loadSettingsFile(globalFile, cfg.Home, settings.FileGlobal, reg)
		collect(d)
		if layer != nil {
			layers = append(layers, *layer)
		}
	}
	trust, d := decideTrust(trustInput{
		AgentDir:      agentDir,
		Project:       cwd,
		Approve:       cfg.Approve,
		NoApprove:     cfg.NoApprove,
		Default:       global.DefaultProjectTrust,
		DefaultSource: globalFile,
	})
	collect(d)
	l.Trust = trust
	skipNote := defaultSkipNote
	if cfg.NoApprove {
		skipNote = "project-local resources ignored (--no-approve)"
	}
	merged := global
	projSettings := filepath.Join(l.ProjectDir, settingsFileName)
	if trust.Trusted {
		proj, layer, d := loadSettingsFile(projSettings, cfg.Home, settings.FileProject, reg)
		collect(d)
		if layer != nil {
			layers = append(layers, *layer)
		}
		merged = mergeSettings(global, proj)
	} else if isRegularFile(projSettings) {
		ds.add(KindSkipped, projSettings, "%s", skipNote)
	}
	if merged.Files == nil {
		merged.Files = []string{}
	}
	l.Settings = merged
	l.Values = settings.New(reg, layers...)
	if agentDir != "" {
		kb, d := loadKeybindings(filepath.Join(agentDir, keybind.FileName))
		collect(d)
		l.Keybindings = kb
	}

	// Context files.
	if !cfg.NoContextFiles {
		files, d := findContextFiles(contextSearch{AgentDir: agentDir, Cwd: cwd, Trusted: trust.Trusted, MaxBytes: merged.MaxPromptFileBytes})
		collect(d)
		l.ContextFiles = files
	}

	// System prompt and append.
	pf := promptFiles{Cwd: cwd, Home: cfg.Home, ProjectDir: l.ProjectDir, AgentDir: agentDir, Trusted: trust.Trusted, SkipNote: skipNote}
	text, src, d := pf.SystemPrompt(cfg.SystemPrompt)
	collect(d)
	l.CustomPrompt, l.CustomPromptSource = text, src
	parts, srcs, d := pf.AppendPrompt(cfg.AppendSystemPrompt)
	collect(d)
	l.AppendParts, l.AppendSources, l.AppendPrompt = parts, srcs, joinAppend(parts)

	// Packages, whose resources come after the settings' own paths.
	pkgs, d := findPackages(l.Values, agentDir, l.ProjectDir, cfg.Home)
	collect(d)
	l.Packages = pkgs
	skillPaths, promptPaths := slices.Clone(merged.Skills), slices.Clone(merged.Prompts)
	var pkgExts []string
	for _, p := range pkgs {
		skillPaths = append(skillPaths, p.Resources.Skills...)
		promptPaths = append(promptPaths, p.Resources.Prompts...)
		pkgExts = append(pkgExts, p.Resources.Extensions...)
	}

	// Skills and templates.
	skills, d := findSkills(skillSearch{
		Cwd: cwd, AgentDir: agentDir, Home: cfg.Home,
		Trusted: trust.Trusted, SkipNote: skipNote, NoDefaults: cfg.NoSkills,
		SettingsPaths: skillPaths, Paths: cfg.SkillPaths,
	})
	collect(d)
	l.Skills = skills[:0]
	for _, s := range skills {
		if enabled(s.FilePath, merged.SkillFilters) {
			l.Skills = append(l.Skills, s)
		} else {
			l.DisabledSkills = append(l.DisabledSkills, s)
		}
	}
	templates, d := findTemplates(templateSearch{
		Cwd: cwd, AgentDir: agentDir, Home: cfg.Home,
		Trusted: trust.Trusted, SkipNote: skipNote, NoDefaults: cfg.NoPromptTemplates,
		SettingsPaths: promptPaths, Paths: cfg.TemplatePaths,
	})
	collect(d)
	l.Templates = templates[:0]
	for _, t := range templates {
		if enabled(t.FilePath, merged.PromptFilters) {
			l.Templates = append(l.Templates, t)
		} else {
			l.DisabledTemplates = append(l.DisabledTemplates, t)
		}
	}

	// Extensions.
	exts, d := findExtensionDirs(extensionSearch{
		Cwd: cwd, AgentDir: agentDir, Home: cfg.Home,
		Trusted: trust.Trusted, SkipNote: skipNote,
		SettingsPaths: merged.Extensions, Paths: cfg.ExtensionPaths,
	})
	collect(d)
	for _, e := range pkgExts {
		if !slices.Contains(exts, e) {
			exts = append(exts, e)
		}
	}
	l.ExtensionDirs = exts

	l.Diagnostics = ds
	// Empty lists, not nulls, in JSON.
	if l.ContextFiles == nil {
		l.ContextFiles = []ContextFile{}
	}
	if l.Skills == nil {
		l.Skills = []Skill{}
	}
	if l.Templates == nil {
		l.Templates = []Template{}
	}
	if l.ExtensionDirs == nil {
		l.ExtensionDirs = []string{}
	}
	if l.Diagnostics == nil {
		l.Diagnostics = []diag.Diagnostic{}
	}
	return l, nil
}
