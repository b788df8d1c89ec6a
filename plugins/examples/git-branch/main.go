//go:build wasip1

// git-branch exposes the current git branch as {{branch}}.
package main

import (
	"strings"

	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

func init() {
	sdk.OnBeforeAgentStart(func(_ *abi.BeforeAgentStartEvent, r *sdk.BeforeAgentStart) error {
		head, err := sdk.ReadFile(".git/HEAD")
		if err != nil {
			sdk.Log(abi.LogInfo, "no branch: "+err.Error())
			return nil
		}
		branch := strings.TrimSpace(string(head))
		if ref, ok := strings.CutPrefix(branch, "ref: "); ok {
			branch = strings.TrimPrefix(ref, "refs/heads/")
		} else if len(branch) > 12 {
			branch = branch[:12] // detached HEAD: a short commit id
		}
		r.SetVariable("branch", branch)
		r.SetSection("branch", "Current git branch: {{branch}}", sdk.Order(710), sdk.Interpolate())
		return nil
	})
}

func main() {}
