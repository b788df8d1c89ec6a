package resources

import (
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/core/diag"
)

// File names of the custom and appended system prompt.
const (
	systemFileName       = "SYSTEM.md"
	appendSystemFileName = "APPEND_SYSTEM.md"
)

// promptFiles says where to look for SYSTEM.md and APPEND_SYSTEM.md and how
// to read `--system-prompt` / `--append-system-prompt` values.
//
// Cwd (for relative flag values) and Home (for `~`) resolve flag values.
// ProjectDir is <cwd>/.pi, used only when Trusted. SkipNote explains, in
// diagnostics, why project files were passed over when not Trusted; it
// defaults to "project not trusted (use --approve)".
type promptFiles struct {
	Cwd, Home, ProjectDir, AgentDir string
	Trusted                         bool
	SkipNote                        string
}

// SystemPrompt returns the custom system prompt and where it came from: the
// last flag value when any is given, else the project's SYSTEM.md when
// trusted, else the agent dir's SYSTEM.md, else nothing. A flag value naming
// an existing file is read from it (source: its absolute path); otherwise it
// is literal text (source: "cli"). A leading byte order mark is stripped
// from files.
func (p promptFiles) SystemPrompt(flags []string) (text, source string, diags []diag.Diagnostic) {
	var ds diagnostics
	if len(flags) > 0 {
		text, source, ok := p.flagValue(flags[len(flags)-1], &ds)
		if ok {
			return text, source, ds
		}
		return "", "", ds
	}
	text, source = p.discover(systemFileName, &ds)
	return text, source, ds
}

// AppendPrompt returns the parts to append to the system prompt, each with
// its source (an absolute file path, or "cli" for literal text): every flag
// value in order when any is given, else the project's APPEND_SYSTEM.md when
// trusted, else the agent dir's APPEND_SYSTEM.md. The peer harness joins the
// parts with a blank line ([joinAppend]).
func (p promptFiles) AppendPrompt(flags []string) (parts, sources []string, diags []diag.Diagnostic) {
	var ds diagnostics
	if len(flags) > 0 {
		for _, f := range flags {
			if text, src, ok := p.flagValue(f, &ds); ok {
				parts = append(parts, text)
				sources = append(sources, src)
			}
		}
		return parts, sources, ds
	}
	if text, src := p.discover(appendSystemFileName, &ds); src != "" {
		parts, sources = []string{text}, []string{src}
	}
	return parts, sources, ds
}

// joinAppend joins append parts the way they enter the prompt: separated by
// one blank line.
func joinAppend(parts []string) string {
	return strings.Join(parts, "\n\n")
}

func (p promptFiles) flagValue(v string, ds *diagnostics) (text, source string, ok bool) {
	path := resolvePath(v, p.Cwd, p.Home)
	if v == "" || !isRegularFile(path) {
		return v, SourceCLI, true
	}
	text, err := readText(path)
	if err != nil {
		ds.add(KindError, path, "cannot read prompt file: %v", err)
		return "", "", false
	}
	return text, path, true
}

// discover looks for name in the project dir (when trusted), then the agent
// dir. source is "" when neither has a readable file.
func (p promptFiles) discover(name string, ds *diagnostics) (text, source string) {
	if p.ProjectDir != "" {
		proj := filepath.Join(p.ProjectDir, name)
		if isRegularFile(proj) {
			if p.Trusted {
				if text, err := readText(proj); err == nil {
					return text, proj
				} else {
					ds.add(KindError, proj, "cannot read %s: %v", name, err)
				}
			} else {
				note := p.SkipNote
				if note == "" {
					note = defaultSkipNote
				}
				ds.add(KindSkipped, proj, "%s", note)
			}
		}
	}
	if p.AgentDir != "" {
		global := filepath.Join(p.AgentDir, name)
		if isRegularFile(global) {
			text, err := readText(global)
			if err == nil {
				return text, global
			}
			ds.add(KindError, global, "cannot read %s: %v", name, err)
		}
	}
	return "", ""
}

const defaultSkipNote = "project not trusted (use --approve)"
