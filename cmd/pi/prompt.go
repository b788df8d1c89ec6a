package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/core/hooks"
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/tool"
	"github.com/piwasm/pi/core/tool/builtin"
	"github.com/spf13/pflag"
)

// prepared is a command's loaded world: resources, extensions and the
// options they give.
type prepared struct {
	loaded *resources.Loaded
	ext    *extEnv
	opts   prompt.Options
	tools  *tool.Registry
}

func (a *app) prepareWorld(ctx context.Context, c *common) (*prepared, error) {
	l, err := a.load(c)
	if err != nil {
		return nil, err
	}
	ext, err := a.openExtensions(ctx, c, l)
	if err != nil {
		return nil, err
	}
	reg, err := toolRegistry(builtin.Env{Cwd: l.Cwd, Home: a.home})
	if err != nil {
		ext.close(ctx)
		return nil, err
	}
	ext.diags = append(ext.diags, addExtensionTools(reg, ext.exts, l.Cwd)...)
	ext.diags = append(ext.diags, addScriptTools(reg, ext.jsExts, l.Cwd)...)
	selected, tdiags, err := selectTools(reg, c, l.Values)
	ext.diags = append(ext.diags, tdiags...)
	if err != nil {
		ext.close(ctx)
		return nil, err
	}
	opts := session.OptionsFrom(l, selected, c.parsedSectionSpec)
	opts.Catalog = catalog(reg)
	return &prepared{loaded: l, ext: ext, opts: opts, tools: reg}, nil
}

func (p *prepared) diagnostics() []diag.Diagnostic {
	out := append([]diag.Diagnostic{}, p.loaded.Diagnostics...)
	out = append(out, p.ext.diags...)
	return append(out, p.ext.dispatcher.Diagnostics()...)
}

type promptJSON struct {
	Sections    []prompt.RenderedSection `json:"sections"`
	Text        string                   `json:"text"`
	Forced      *hooks.Forced            `json:"forced,omitempty"`
	Messages    []hooks.Injected         `json:"messages,omitempty"`
	Contexts    string                   `json:"contexts,omitempty"`
	Diagnostics []diag.Diagnostic        `json:"diagnostics"`
}

func (a *app) cmdPrompt(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("prompt", pflag.ContinueOnError)
	var c common
	c.register(fs)
	explain := fs.Bool("explain", false, "print a table of sections with order, source, bytes and approximate tokens")
	input := fs.String("input", "", "the user input the prompt is prepared for (extensions may react to it)")
	rest, err := c.parse(fs, args)
	if err != nil {
		return a.helpOr(err, "pi prompt [flags]", fs)
	}
	if len(rest) > 0 {
		return usagef("prompt takes no arguments (got %q); use --input for the user's text", rest[0])
	}
	w, err := a.prepareWorld(ctx, &c)
	if err != nil {
		return err
	}
	defer w.ext.close(ctx)
	p, err := session.Prepare(ctx, w.ext.dispatcher, w.opts, *input)
	if err != nil {
		printDiagnostics(a.stderr, w.diagnostics())
		return err
	}
	// The next request carries the forced prompt when an extension forced one.
	text := p.Rendered.Text
	if p.Forced != nil {
		text = p.Forced.Text
	}
	diags := w.diagnostics()
	switch {
	case c.json:
		out := promptJSON{Sections: p.Rendered.Sections, Text: text, Forced: p.Forced, Messages: p.Messages, Contexts: p.Contexts, Diagnostics: diags}
		if out.Diagnostics == nil {
			out.Diagnostics = []diag.Diagnostic{}
		}
		return writeJSON(a.stdout, out)
	case *explain:
		printDiagnostics(a.stderr, diags)
		return explainTable(a.stdout, p)
	default:
		printDiagnostics(a.stderr, diags)
		_, err := io.WriteString(a.stdout, a.display(text)+"\n")
		return err
	}
}

func explainTable(w io.Writer, p *session.Prepared) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SECTION\tORDER\tSOURCE\tBYTES\t~TOKENS")
	total := 0
	for _, s := range p.Rendered.Sections {
		fmt.Fprintf(tw, "%s\t%g\t%s\t%d\t%d\n", esc(s.Name), s.Order, esc(s.Source), len(s.Text), approxTokens(len(s.Text)))
	}
	total = len(p.Rendered.Text)
	fmt.Fprintf(tw, "total\t\t\t%d\t%d\n", total, approxTokens(total))
	if err := tw.Flush(); err != nil {
		return err
	}
	if p.Forced != nil {
		fmt.Fprintf(w, "\nforced prompt from extension:%s (%d bytes) replaces all of the above in the next request only\n", esc(p.Forced.Extension), len(p.Forced.Text))
	}
	for _, m := range p.Messages {
		fmt.Fprintf(w, "injected message from extension:%s (%d bytes)\n", esc(m.Extension), len(m.Text))
	}
	return nil
}

// approxTokens estimates tokens as bytes/4, the usual rule of thumb for
// English prose and code.
func approxTokens(n int) int { return (n + 3) / 4 }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// helpOr prints a command's help for -h/--help and passes other errors on.
func (a *app) helpOr(err error, usage string, fs *pflag.FlagSet) error {
	if errors.Is(err, pflag.ErrHelp) {
		fmt.Fprintf(a.stdout, "Usage: %s\n\n%s", usage, fs.FlagUsages())
		return errHelp
	}
	return err
}
