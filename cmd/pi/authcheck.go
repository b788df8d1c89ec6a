package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/core/provider"
	"github.com/spf13/pflag"
)

// pi auth check | print-api-key | print-bearer-token, as the established
// harness has them for scripts: resolve a provider's credential (named by
// --provider, or by the model --model selects) the way a request would,
// and say whether it is ready (exit 0), not ready (1) or invalid (2), or
// print it. The printing commands write a secret to stdout, by request.

const authCheckUsage = `pi auth check --provider NAME | --model MODEL [--json]   ready (exit 0), not_ready (1) or invalid (2)
pi auth print-api-key --provider NAME | --model MODEL    print the resolved API key
pi auth print-bearer-token --provider NAME | --model MODEL  print the resolved OAuth bearer token`

// authCheckResult is check's --json output, in the established harness's
// fields.
type authCheckResult struct {
	Status   string `json:"status"`
	Provider string `json:"provider"`
	AuthType string `json:"authType,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

func (a *app) cmdAuthCheck(cmd string, args []string) error {
	fs := pflag.NewFlagSet("pi auth "+cmd, pflag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	prov := fs.String("provider", "", "the provider whose credential to resolve")
	model := fs.String("model", "", "the model whose provider's credential to resolve")
	asJSON := fs.Bool("json", false, "print the result as JSON (check)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprintln(a.stdout, "Usage:\n  "+strings.ReplaceAll(authCheckUsage, "\n", "\n  "))
			return errHelp
		}
		return usagef("pi auth %s: %v", cmd, err)
	}
	if *asJSON && cmd != "check" {
		return usagef("pi auth %s: --json is for pi auth check", cmd)
	}
	if *prov == "" && *model == "" {
		return usagef("pi auth %s needs --provider NAME or --model MODEL (pi auth status lists what auth.json holds)", cmd)
	}
	agentDir := a.agentDir()
	models, err := provider.LoadModels(filepath.Join(agentDir, "models.json"), a.getenv)
	if err == nil {
		models.Stored, err = a.storedKeys(agentDir)
	}
	res := authCheckResult{Provider: *prov}
	var cred provider.Credential
	switch {
	case err != nil:
		res.Status, res.Reason = "invalid", "invalid_state"
	default:
		if *model != "" {
			sel, serr := models.Select(provider.Selection{Model: *model, Provider: *prov})
			if serr != nil {
				return usagef("pi auth %s: %v", cmd, serr)
			}
			res.Provider = sel.Route.Provider
		}
		var known bool
		cred, known = models.ProviderCredential(res.Provider)
		switch {
		case !known:
			res.Status, res.Reason = "not_ready", "provider_not_found"
		case cred.Key == "" && (cred.Problem == "" || cred.Unset):
			res.Status, res.Reason = "not_ready", "credentials_not_configured"
		case cred.Problem != "":
			res.Status, res.Reason = "invalid", "invalid_state"
		case cred.Key == "":
			res.Status, res.Reason = "not_ready", "credentials_not_configured"
		default:
			res.Status, res.AuthType = "ready", "api_key"
			if cred.OAuth {
				res.AuthType = "oauth"
			}
		}
	}
	if cmd == "check" {
		if *asJSON {
			b, _ := json.Marshal(res)
			fmt.Fprintf(a.stdout, "%s\n", b)
		} else {
			fmt.Fprintln(a.stdout, res.Status)
		}
		switch res.Status {
		case "ready":
			return nil
		case "invalid":
			why := cred.Problem
			if err != nil {
				why = err.Error()
			}
			return usagef("%s", why)
		}
		return fmt.Errorf("no credential for provider %q", res.Provider)
	}
	if res.Status != "ready" {
		if cred.Problem != "" && !cred.Unset {
			return errors.New(cred.Problem)
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("no usable credential is configured for provider %q", res.Provider)
	}
	if cmd == "print-bearer-token" && !cred.OAuth {
		return fmt.Errorf("provider %q is not configured with an OAuth bearer token", res.Provider)
	}
	if cmd == "print-api-key" && cred.OAuth {
		return fmt.Errorf("provider %q has an OAuth token, not an API key (pi auth print-bearer-token prints it)", res.Provider)
	}
	_, werr := fmt.Fprintln(a.stdout, cred.Key)
	return werr
}
