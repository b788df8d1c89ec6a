//go:build wasip1

// sdkguest is a well-behaved test guest on the SDK, used for the
// contract, benchmark and soak tests. Behaviour is chosen by the event.
package main

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"time"

	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

func init() {
	sdk.OnBeforeAgentStart(func(ev *abi.BeforeAgentStartEvent, r *sdk.BeforeAgentStart) error {
		switch ev.Input {
		case "":
			return nil // the no-op used by the overhead benchmark
		case "blob":
			b, err := sdk.Fetch("blob")
			if err != nil {
				return err
			}
			r.InjectMessage(fmt.Sprint(len(b)))
		case "garbage":
			// allocate and drop ~64 KiB per call (soak test)
			var sb strings.Builder
			for i := 0; i < 1024; i++ {
				sb.WriteString("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
			}
			r.InjectMessage(fmt.Sprint(len(sb.String())))
		case "entropy":
			r.InjectMessage(fmt.Sprintf("%d %d %s", rand.Int63(), time.Now().UnixNano(), time.Now().UTC().Format(time.RFC3339)))
		case "clock":
			r.InjectMessage(time.Now().UTC().Format(time.RFC3339))
		case "panic":
			var m map[string]int
			m["x"] = 1
		case "error":
			return errors.New("guest refuses")
		case "lazy":
			p, err := sdk.SystemPrompt(ev)
			if err != nil {
				return err
			}
			c, err := sdk.ContextFile(ev.Options.ContextFiles[0])
			if err != nil {
				return err
			}
			_, missing := sdk.Fetch("nope")
			r.InjectMessage(fmt.Sprintf("%d|%s|%v", len(p), c, errors.Is(missing, sdk.ErrNotFound)))
		case "bad-op":
			r.SetSection("Bad Name", "x")
		case "log":
			sdk.Log(abi.LogWarn, "hello from the guest")
		default:
			r.SetSection("echo", ev.Input, sdk.Order(250))
			r.SetVariable("who", "guest")
		}
		return nil
	})
	sdk.OnAssemble(func(ev *abi.AssembleEvent, r *sdk.Assemble) error {
		for _, s := range ev.Sections {
			if s.Name == "rules" {
				r.SetSection("rules", s.Text+"\n- Edited by sdkguest.")
			}
		}
		return nil
	})
	sdk.OnInput(func(ev *abi.InputEvent) (abi.InputResult, error) {
		if strings.HasPrefix(ev.Text, "!") {
			return sdk.Transform(strings.ToUpper(ev.Text[1:])), nil
		}
		return sdk.Continue(), nil
	})
	sdk.Command("echo", func(ev *abi.CommandEvent) (abi.CommandResult, error) {
		return abi.CommandResult{Show: ev.Args}, nil
	})
}

func main() {}
