package main

import (
	"context"
	"fmt"
	"github.com/piwasm/pi/internal/lazyre"
	"io"
	"strings"

	"github.com/piwasm/pi/core/settings"
	"github.com/spf13/pflag"
)

// subcommand is one word pi treats as a command rather than a message.
// Usage is its line in `pi --help` ("" keeps it out of the list). A command
// the established harness has and pi does not yet gets a placeholder
// (notYet) that says so and exits 2, so the word never reaches a model;
// its owner replaces the entry's run with one line.
type subcommand struct {
	name  string
	usage string
	run   func(a *app, ctx context.Context, args []string) error
}

// subcommands is the dispatch table of `pi WORD ...`. Anything else is the
// main mode (messages to a model).
func subcommands() []subcommand {
	return []subcommand{
		{"prompt", "pi prompt [flags]           print the system prompt the next request would carry", (*app).cmdPrompt},
		{"expand", "pi expand [flags] -- TEXT   show what an input line becomes before it is sent", (*app).cmdExpand},
		{"resources", "pi resources [flags]        list context files, prompt sources, skills, templates, settings, trust", (*app).cmdResources},
		{"ext", "pi ext SUBCOMMAND           build, inspect, test, install and list extensions", (*app).cmdExt},
		{"session", "pi session list|show        list this directory's sessions; show a transcript and its requests", (*app).cmdSession},
		{"sandbox", "pi sandbox check [--json]   show the sandbox policy for this directory and whether the kernel enforces it", (*app).cmdSandbox},
		{"trust", "pi trust [--revoke] [DIR]   trust a project's .pi/ resources from now on (or stop trusting it)", (*app).cmdTrust},
		// The established harness's commands pi does not have yet.
		{"install", "pi install SOURCE [-l] [-y]   install an extension package: npm:NAME[@V], git:HOST/OWNER/REPO[@REF], ./DIR", (*app).cmdInstall},
		{"remove", "pi remove NAME|SOURCE [-l]    remove an installed package and its grant", (*app).cmdRemove},
		{"uninstall", "", (*app).cmdRemove},
		{"update", "pi update [NAME] [-l] [-y]    fetch installed packages again; a changed module needs its grant again", (*app).cmdUpdate},
		{"list", "pi list [--json]              installed packages, their sources and pinned hashes", (*app).cmdList},
		{"config", "pi config [enable|disable NAME]  list skills, prompt templates and extensions; turn one on or off", (*app).cmdConfig},
		{"mcp", "pi mcp add|remove|list|get|check  MCP servers in mcp.json: edit, connect and list, show one, its sandbox", (*app).cmdMCP},
		{"auth", "pi auth login|logout|status   store an API key in auth.json, remove it, list what is stored", (*app).cmdAuth},
	}
}

// notYet is the placeholder of a command pi does not implement: a usage
// error (exit 2) that names what to use instead, and no model call.
func notYet(name, instead string) func(*app, context.Context, []string) error {
	return func(*app, context.Context, []string) error {
		return usagef("pi %s is a command of the TypeScript pi that this pi does not have (%s); to send %q to the model as a message, write pi -- %s ...", name, instead, name, name)
	}
}

// lookupSubcommand finds the command named word.
func lookupSubcommand(word string) (subcommand, bool) {
	for _, c := range subcommands() {
		if c.name == word {
			return c, true
		}
	}
	return subcommand{}, false
}

// bareWord matches what could be a mistyped command: one lowercase word.
var bareWord = lazyre.New(`^[a-z][a-z-]{1,15}$`)

// typoOf returns the command word is one edit away from (a letter added,
// dropped, changed, or two swapped), or "". Only bare words of three or
// more letters count, so short messages and paths go to the model.
func typoOf(word string) string {
	if len(word) < 3 || !bareWord().MatchString(word) {
		return ""
	}
	var names []string
	for _, c := range subcommands() {
		names = append(names, c.name)
	}
	names = append(names, "help")
	near := settings.Nearest(word, names)
	if near == "" || near == word || settings.EditDistance(word, near) > 1 {
		return ""
	}
	return near
}

// optionGroups places the main mode's flags in the groups of `pi --help`,
// in order; a flag not listed here appears under "Other", so no flag is
// ever missing from the help.
var optionGroups = []struct {
	title string
	flags []string
}{
	{"Model and thinking", []string{"provider", "model", "models", "api-key", "thinking", "list-models", "max-tokens"}},
	{"Output", []string{"print", "mode", "transcript", "pi-events", "dry-run", "fullscreen", "tui-mode", "use-theme", "offline", "timeout", "verbose", "version"}},
	{"Sessions", []string{"continue", "resume", "session", "session-id", "session-dir", "fork", "no-session", "name", "export"}},
	{"System prompt and context", []string{"system-prompt", "append-system-prompt", "no-context-files", "section", "cwd"}},
	{"Tools", []string{"tools", "exclude-tools", "no-builtin-tools", "no-tools"}},
	{"Resources and extensions", []string{"skill", "no-skills", "prompt-template", "no-prompt-templates", "no-expand", "extension", "no-extensions", "theme", "no-themes", "grant", "no-memo", "no-mcp"}},
	{"Trust and sandbox", []string{"approve", "no-approve", "sandbox", "sandbox-network"}},
}

const helpExamples = `Examples:
  pi                                         open the interactive session
  pi "Which tests cover the parser?"         open it with a first message
  pi @notes.md @screen.png "What is wrong?"  put files (and images) into the first message
  pi -p "Summarise the README"               answer once on stdout and exit
  pi -p -- "- bullet points to tidy"         a message that starts with a dash
  pi "Read go.mod" "Which modules are old?"  several messages, one after another
  pi -c "Where were we?"                     go on with this directory's latest session
  pi --model openai/gpt-4o-mini -p "Hi"      pick the model by provider/id
  pi --model sonnet:high "Plan the refactor" a fuzzy model name with a thinking level
  pi --models sonnet:high,haiku:low          the models ctrl+p cycles through
  pi --thinking low -p "Rename x to y"       start at a thinking level
  pi -t read,grep,find,ls -p "Review src/"   read-only: no tool that writes
  pi -t +grep,-bash                          change the default tools
  pi -xt write "Explain main.go"             leave one tool out
  pi --dry-run -p "Hi"                       print the request body instead of sending it
`

const helpEnvironment = `Environment:
  PI_CODING_AGENT_DIR          agent dir (default ~/.pi/agent)
  PI_CODING_AGENT_SESSION_DIR  where sessions are stored
  OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, ...
                               provider keys (after --api-key and auth.json); see docs/configuration.md
  ANTHROPIC_AUTH_TOKEN, ANTHROPIC_OAUTH_TOKEN
                               Anthropic bearer tokens
  HTTP_PROXY, HTTPS_PROXY      proxy for model requests (settings: httpProxy)
  VISUAL, EDITOR               the external editor (settings: externalEditor)
  NO_COLOR                     no colours in the interactive session
`

// mainFlags is the flag set of the main mode, for help.
func mainFlags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("pi", pflag.ContinueOnError)
	var c common
	c.register(fs)
	var r runFlags
	r.register(fs)
	r.sandbox.register(fs)
	return fs
}

// writeHelp prints `pi --help` with the flags of the extensions c would
// load (read from their manifests; no guest runs). A flag of theirs that
// cannot be offered is said on stderr.
func (a *app) writeHelp(c *common) {
	flags, diags := a.extensionFlags(c)
	printDiagnostics(a.stderr, diags)
	writeMainHelpWith(a.stdout, flags)
}

// writeMainHelp prints `pi --help` without extension flags.
func writeMainHelp(w io.Writer) { writeMainHelpWith(w, nil) }

// writeMainHelpWith prints `pi --help`: the usage, the commands, every
// option of the main mode in groups, the extensions' flags, examples and
// the environment.
func writeMainHelpWith(w io.Writer, extFlags []extFlag) {
	fmt.Fprint(w, "pi — a coding-agent harness with sandboxed WebAssembly extensions\n\n")
	fmt.Fprint(w, "Usage:\n  pi [options] [--] [@files...] [messages...]\n\n")
	fmt.Fprint(w, "Commands:\n")
	for _, c := range subcommands() {
		if c.usage != "" {
			fmt.Fprintf(w, "  %s\n", c.usage)
		}
	}
	fmt.Fprint(w, "  pi COMMAND --help           the flags of a command\n\n")
	fs := mainFlags()
	placed := map[string]bool{}
	for _, g := range optionGroups {
		var fl []*pflag.Flag
		for _, name := range g.flags {
			if f := fs.Lookup(name); f != nil {
				fl = append(fl, f)
				placed[name] = true
			}
		}
		writeFlagGroup(w, g.title, fl)
	}
	var other []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if !placed[f.Name] {
			other = append(other, f)
		}
	})
	writeFlagGroup(w, "Other", other)
	fmt.Fprint(w, "  -h, --help                      this help\n  --                              end of options: what follows is messages and @files\n\n")
	writeExtFlagHelp(w, extFlags)
	fmt.Fprint(w, helpExamples, "\n", helpEnvironment)
}

// shortFormNote is the "(short form -xt)" the flag descriptions carry for
// pflag's own help; the main help shows the short form in front instead.
var shortFormNote = lazyre.New(` \(short form -[a-z]+\)`)

// writeFlagGroup prints one group of options, one per line: short and long
// form, the value's name, and the description (with its default).
func writeFlagGroup(w io.Writer, title string, flags []*pflag.Flag) {
	if len(flags) == 0 {
		return
	}
	shortOf := map[string]string{}
	for short, long := range multiLetterShort {
		shortOf[strings.TrimPrefix(long, "--")] = short
	}
	fmt.Fprintf(w, "%s:\n", title)
	for _, f := range flags {
		left := "--" + f.Name
		switch {
		case f.Shorthand != "":
			left = "-" + f.Shorthand + ", " + left
		case shortOf[f.Name] != "":
			left = shortOf[f.Name] + ", " + left
		}
		name, usage := pflag.UnquoteUsage(f)
		switch f.Value.Type() {
		case "bool":
			name = ""
		case "stringArray", "stringSlice", "strings":
			name = "LIST"
			if f.Value.Type() == "stringArray" {
				name = "VALUE"
			}
		}
		if f.NoOptDefVal != "" && f.Value.Type() != "bool" {
			name = "[SEARCH]" // --list-models, the one optional value
		}
		if name != "" {
			left += " " + strings.ToUpper(name)
		}
		usage = shortFormNote().ReplaceAllString(usage, "")
		if d := f.DefValue; d != "" && d != "false" && d != "0" && d != "[]" && f.NoOptDefVal == "" {
			usage += " (default " + d + ")"
		}
		if len(left) > 30 {
			fmt.Fprintf(w, "  %s\n  %-30s  %s\n", left, "", usage)
		} else {
			fmt.Fprintf(w, "  %-30s  %s\n", left, usage)
		}
	}
	fmt.Fprintln(w)
}
