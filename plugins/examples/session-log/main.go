//go:build wasip1

// session-log logs the session life-cycle and refuses the changes its
// config lists.
package main

import (
	"slices"

	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

type config struct {
	Refuse []string `json:"refuse"`
}

// refused reports whether the config lists change, logging the decision.
func refused(change, detail string) (bool, error) {
	var c config
	if err := sdk.Config(&c); err != nil {
		return false, err
	}
	if slices.Contains(c.Refuse, change) {
		sdk.Log(abi.LogInfo, "refused "+change+" "+detail)
		return true, nil
	}
	sdk.Log(abi.LogInfo, "allowed "+change+" "+detail)
	return false, nil
}

func init() {
	sdk.OnSessionStart(func(ev *abi.SessionStartEvent) error {
		sdk.Log(abi.LogInfo, "session_start "+ev.Reason+" "+ev.SessionFile)
		return nil
	})
	sdk.OnSessionShutdown(func(ev *abi.SessionShutdownEvent) error {
		sdk.Log(abi.LogInfo, "session_shutdown "+ev.Reason+" "+ev.SessionFile)
		return nil
	})
	sdk.OnSessionBeforeSwitch(func(ev *abi.SessionBeforeSwitchEvent) (abi.SessionCancelResult, error) {
		no, err := refused(ev.Reason, ev.TargetSessionFile)
		if no {
			return sdk.KeepSession(), err
		}
		return sdk.LetSwitch(), err
	})
	sdk.OnSessionBeforeFork(func(ev *abi.SessionBeforeForkEvent) (abi.SessionBeforeForkResult, error) {
		change := "fork"
		if ev.Position == abi.ForkAt {
			change = "clone"
		}
		no, err := refused(change, ev.EntryID)
		if no {
			return sdk.CancelFork(), err
		}
		return sdk.LetFork(), err
	})
}

func main() {}
