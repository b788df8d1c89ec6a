package main

import (
	"context"
	"io"
	"strings"

	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/core/session"
	"github.com/spf13/pflag"
)

type expandJSON struct {
	Kind        string            `json:"kind"`
	Name        string            `json:"name,omitempty"`
	Text        string            `json:"text"`
	Show        string            `json:"show,omitempty"`
	Send        bool              `json:"send"`
	Diagnostics []diag.Diagnostic `json:"diagnostics"`
}

func (a *app) cmdExpand(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("expand", pflag.ContinueOnError)
	var c common
	c.register(fs)
	noExpand := fs.Bool("no-expand", false, "do not expand /skill: and /template lines (extension commands and the input hook still run)")
	rest, err := c.parse(fs, args)
	if err != nil {
		return a.helpOr(err, "pi expand [flags] -- TEXT", fs)
	}
	if len(rest) == 0 {
		return usagef("expand needs the input text: pi expand -- '/name args'")
	}
	line := strings.Join(rest, " ")
	w, err := a.prepareWorld(ctx, &c)
	if err != nil {
		return err
	}
	defer w.ext.close(ctx)
	out, err := session.Funnel(ctx, w.ext.dispatcher, w.loaded, line, *noExpand)
	if err != nil {
		printDiagnostics(a.stderr, w.diagnostics())
		return err
	}
	if c.json {
		j := expandJSON{Kind: out.Kind, Name: out.Name, Text: out.Text, Show: out.Show, Send: out.Send, Diagnostics: w.diagnostics()}
		if j.Diagnostics == nil {
			j.Diagnostics = []diag.Diagnostic{}
		}
		return writeJSON(a.stdout, j)
	}
	printDiagnostics(a.stderr, w.diagnostics())
	text := out.Text
	if !out.Send {
		text = out.Show
	}
	_, err = io.WriteString(a.stdout, a.display(text)+"\n")
	return err
}
