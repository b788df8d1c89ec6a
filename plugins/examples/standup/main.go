//go:build wasip1

// standup turns `/standup [days]` into a request for a standup update.
package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

func init() {
	sdk.CommandWith(abi.CommandInfo{Name: "standup", Description: "Draft a standup update from recent work", ArgumentHint: "[days]"},
		func(ev *abi.CommandEvent) (abi.CommandResult, error) {
			days := 1
			if f := strings.Fields(ev.Args); len(f) > 0 {
				n, err := strconv.Atoi(f[0])
				if err != nil || n < 1 || n > 365 {
					return abi.CommandResult{Show: fmt.Sprintf("usage: /standup [days], days a number from 1 to 365 (got %q)", f[0])}, nil
				}
				days = n
			}
			period := "day"
			if days > 1 {
				period = fmt.Sprintf("%d days", days)
			}
			return abi.CommandResult{Send: fmt.Sprintf(
				"Draft my standup update for the last %s. Look at the git log and the files changed in that period, "+
					"then write three short lists: what I did, what I will do next, and anything blocking me.", period)}, nil
		})
}

func main() {}
