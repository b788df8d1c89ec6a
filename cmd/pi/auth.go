package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/piwasm/pi/core/auth"
	"github.com/piwasm/pi/core/provider"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// storedKeys reads the agent dir's auth.json for the model routes: API keys
// as stored, OAuth access tokens refreshed when they have expired. A bad
// file is an error naming it; a token that cannot be refreshed leaves that
// provider to the other sources, with a warning.
func (a *app) storedKeys(agentDir string) (map[string]provider.StoredKey, error) {
	st, err := auth.Load(filepath.Join(agentDir, auth.FileName))
	if err != nil {
		return nil, err
	}
	out := map[string]provider.StoredKey{}
	for _, name := range st.Providers() {
		c, _ := st.Get(name)
		switch c.Type {
		case "api_key":
			if c.Key != "" {
				out[name] = provider.StoredKey{Key: c.Key}
			}
		case "oauth":
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			tok, _, err := st.AccessToken(ctx, name, auth.Refresher{})
			cancel()
			if err != nil {
				fmt.Fprintf(a.stderr, "pi: warning: %s\n", esc(err.Error()))
				continue
			}
			out[name] = provider.StoredKey{Key: tok, OAuth: true}
		}
	}
	return out, nil
}

const authUsage = `pi auth login [--provider] NAME [--key KEY]   store an API key in auth.json (read from stdin without --key)
pi auth logout [--provider] NAME              remove a provider's stored credential
pi auth status                                list the stored credentials (never their values)
` + authCheckUsage

// cmdAuth manages the API keys in auth.json, the file the TypeScript pi's
// /login writes: pi reads its keys and OAuth tokens and writes API keys.
func (a *app) cmdAuth(_ context.Context, args []string) error {
	if len(args) == 0 {
		// One line, naming every subcommand (it printed the usage, then
		// named three of its six).
		return usagef("pi auth needs a subcommand: login, logout, status, check, print-api-key or print-bearer-token (pi auth --help describes them)")
	}
	if args[0] == "--help" || args[0] == "-h" || args[0] == "help" {
		fmt.Fprintln(a.stdout, "Usage:\n  "+strings.ReplaceAll(strings.TrimRight(authUsage, "\n"), "\n", "\n  "))
		return errHelp
	}
	switch args[0] {
	case "check", "print-api-key", "print-bearer-token":
		return a.cmdAuthCheck(args[0], args[1:])
	}
	fs := pflag.NewFlagSet("auth", pflag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	prov := fs.String("provider", "", "provider id, as in models.json and --model provider/id")
	key := fs.String("key", "", "the API key (default: read from stdin)")
	if err := fs.Parse(args[1:]); err != nil {
		return usagef("pi auth %s: %v", args[0], err)
	}
	if *prov == "" && fs.NArg() > 0 {
		*prov = fs.Arg(0)
	}
	path := filepath.Join(a.agentDir(), auth.FileName)
	st, err := auth.Load(path)
	if err != nil {
		return err
	}
	switch args[0] {
	case "login":
		if *prov == "" {
			return usagef("pi auth login: name the provider (pi auth login anthropic)")
		}
		k := *key
		if k == "" {
			if k, err = a.readKey(*prov); err != nil {
				return err
			}
		}
		if err := st.SetAPIKey(*prov, k); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "stored an API key for %s in %s\n", esc(*prov), esc(path))
		return nil
	case "logout":
		if *prov == "" {
			return usagef("pi auth logout: name the provider")
		}
		ok, err := st.Remove(*prov)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%s has no credential for %s", path, *prov)
		}
		fmt.Fprintf(a.stdout, "removed the credential of %s from %s\n", esc(*prov), esc(path))
		return nil
	case "status":
		names := st.Providers()
		if len(names) == 0 {
			fmt.Fprintf(a.stdout, "no stored credentials in %s\n", esc(path))
		}
		for _, n := range names {
			c, _ := st.Get(n)
			fields := []string{n, c.Type}
			if c.Type == "api_key" && (strings.HasPrefix(c.Key, "!") || strings.HasPrefix(c.Key, "$")) {
				fields = append(fields, "from "+strings.SplitN(c.Key, " ", 2)[0])
			}
			if c.Type == "oauth" {
				exp := time.UnixMilli(c.Expires)
				state := "valid until " + exp.Format(time.RFC3339)
				if time.Now().After(exp) {
					state = "expired (refreshed on next use)"
				}
				fields = append(fields, state)
			}
			for i := range fields {
				fields[i] = esc(fields[i])
			}
			fmt.Fprintln(a.stdout, strings.Join(fields, "\t"))
		}
		return nil
	}
	return usagef("pi auth: unknown subcommand %q (login, logout or status)", args[0])
}

// readKey reads an API key from stdin: without echo at a terminal.
func (a *app) readKey(prov string) (string, error) {
	if f, ok := a.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(a.stderr, "API key for %s: ", prov)
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(a.stderr)
		if err != nil {
			return "", err
		}
		return strings.TrimSpace(string(b)), nil
	}
	line, err := bufio.NewReader(a.stdin).ReadString('\n')
	if strings.TrimSpace(line) == "" {
		return "", usagef("pi auth login: no key given (--key KEY, or the key on stdin)")
	}
	_ = err
	return strings.TrimSpace(line), nil
}
