package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/core/export"
	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/session"
	"github.com/spf13/pflag"
)

// peerFlags are main-mode flags of the established harness that pi takes
// with the meaning it can give them, so that scripts and habits carry
// over: --offline (pi makes no network call at start-up anyway),
// --tui-mode (the choice --fullscreen makes), --export (a session file as
// HTML, then exit), --theme/--use-theme/--no-themes (the interactive
// session's colours; see themes.go).
type peerFlags struct {
	offline bool
	tuiMode string
	export  string
	themes  themeFlags
}

func (p *peerFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&p.offline, "offline", false, "make no network call at start-up (pi never does; accepted for scripts written for the TypeScript pi)")
	fs.StringVar(&p.tuiMode, "tui-mode", "", "fullscreen or regular: draw the interactive session in the whole window or in the terminal's scrollback (as --fullscreen or its absence; over the tuiMode setting)")
	fs.StringVar(&p.export, "export", "", "write the session FILE as a self-contained HTML page (to the path that follows, else FILE with .html) and exit")
	p.themes.register(fs)
}

// apply acts on the flags before a run: --tui-mode sets the drawing mode;
// --export writes the page and reports done.
func (p *peerFlags) apply(a *app, r *runFlags, fs *pflag.FlagSet, rest []string) (done bool, err error) {
	r.tuiChosen = p.tuiMode != "" || fs.Changed("fullscreen")
	switch p.tuiMode {
	case "":
	case "fullscreen":
		r.fullscreen = true
	case "regular":
		if fs.Changed("fullscreen") && r.fullscreen {
			return true, usagef("--tui-mode regular and --fullscreen contradict each other")
		}
		r.fullscreen = false
	default:
		return true, usagef("--tui-mode %q: want fullscreen or regular", p.tuiMode)
	}
	if p.export == "" {
		return false, nil
	}
	if len(rest) > 1 {
		return true, usagef("--export FILE [OUT] takes at most one more argument, the page to write")
	}
	out := strings.TrimSuffix(p.export, filepath.Ext(p.export)) + ".html"
	if len(rest) == 1 {
		out = rest[0]
	}
	return true, exportSessionHTML(a, p.export, out)
}

// exportSessionHTML writes the active branch of a session file as HTML.
func exportSessionHTML(a *app, file, out string) error {
	if !filepath.IsAbs(file) {
		file = filepath.Join(a.wd, file)
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join(a.wd, out)
	}
	tr, err := session.Load(file)
	if err != nil {
		return fmt.Errorf("--export: %w", err)
	}
	msgs := session.ContextMessages(tr.Branch())
	meta := export.Meta{SessionID: tr.Header.ID, Cwd: tr.Header.Cwd, Created: tr.Header.Timestamp}
	for _, m := range msgs {
		if m.Role == "user" {
			meta.Title, _, _ = strings.Cut(strings.TrimSpace(m.Content.Text()), "\n")
			break
		}
	}
	if err := os.WriteFile(out, export.HTML(meta, msgs), 0o644); err != nil {
		return fmt.Errorf("--export: %w", err)
	}
	_, err = fmt.Fprintf(a.stdout, "exported %d messages to %s\n", len(msgs), out)
	return err
}

// cacheRetention reads PI_CACHE_RETENTION as the established harness does:
// "long" asks for the providers' longer prompt caching (an hour on
// Anthropic, 24 hours on OpenAI); anything else leaves their default.
func cacheRetention(getenv func(string) string) string {
	if strings.TrimSpace(getenv("PI_CACHE_RETENTION")) == "long" {
		return provider.CacheLong
	}
	return ""
}
