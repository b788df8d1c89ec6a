//go:build wasip1

// sdkguest is a well-behaved test guest on the SDK, used for the
// contract, benchmark and soak tests. Behaviour is chosen by the event.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

var blobBuf []byte

func init() {
	sdk.OnBeforeAgentStart(func(ev *abi.BeforeAgentStartEvent, r *sdk.BeforeAgentStart) error {
		switch ev.Input {
		case "":
			return nil // the no-op used by the overhead benchmark
		case "blob":
			b, err := sdk.FetchInto(blobBuf, "blob")
			if err != nil {
				return err
			}
			blobBuf = b
			r.InjectMessage(strconv.Itoa(len(b)))
		case "garbage":
			// allocate and drop ~64 KiB per call (soak test)
			var sb strings.Builder
			for i := 0; i < 1024; i++ {
				sb.WriteString("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
			}
			r.InjectMessage(fmt.Sprint(len(sb.String())))
		case "entropy":
			r.InjectMessage(fmt.Sprintf("%d %d %s", rand.Int63(), time.Now().UnixNano(), time.Now().UTC().Format(time.RFC3339)))
		case "monotonic":
			// time.Now's String shows the monotonic reading ("m=+0.004"):
			// what the guest's runtime has counted since it started.
			r.InjectMessage(fmt.Sprintf("%d %s", rand.Int63(), time.Now().String()))
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
				text, err := sdk.Text(s)
				if err != nil {
					return err
				}
				r.SetSection("rules", text+"\n- Edited by sdkguest.")
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
	// The smallest policy: the cost of a tool_call hook itself.
	sdk.OnToolCall(func(ev *abi.ToolCallEvent) (abi.ToolCallResult, error) {
		if ev.ToolName == "never" {
			return sdk.Block("never"), nil
		}
		return sdk.Allow(), nil
	})
	// The smallest tool: the cost of an extension tool's round trip.
	sdk.Tool("echo", func(ev *abi.ToolEvent) (abi.ToolResult, error) {
		return sdk.TextResult(sdk.StringArg(ev.Input, "text")), nil
	})
}

func main() {}

//go:wasmexport probe_gosched
func probeGosched() int32 { runtime.Gosched(); return 0 }

//go:wasmexport probe_json
func probeJSON() int32 {
	var ev abi.InputEvent
	_ = json.Unmarshal([]byte(`{"text":"hello"}`), &ev)
	return 0
}

//go:wasmexport probe_marshal
func probeMarshal() int32 {
	b, _ := abi.EncodeResult(abi.InputResult{Action: "continue"})
	return int32(len(b))
}

var probeEvent []byte

//go:wasmexport probe_decode8k
func probeDecode8k() int32 {
	if probeEvent == nil {
		probeEvent, _ = sdk.Fetch("event")
	}
	var ev abi.AssembleEvent
	if err := ev.DecodeJSON(probeEvent); err != nil {
		return 1
	}
	return int32(len(ev.Sections))
}

//go:wasmexport probe_encode1k
func probeEncode1k() int32 {
	var r sdk.Assemble
	r.SetSection("rules", strings.Repeat("Keep changes small and explain why they are needed. ", 20))
	b, _ := abi.AppendResult(nil, abi.AssembleResult{Ops: r.List()})
	return int32(len(b))
}

//go:wasmexport probe_decode_wire
func probeDecodeWire() int32 {
	raw, _ := sdk.Fetch("event")
	var ev abi.AssembleEvent
	if err := ev.DecodeJSON(raw); err != nil {
		return 1
	}
	return int32(len(ev.Sections))
}

//go:wasmexport probe_text
func probeText() int32 {
	s, _ := sdk.SectionText("rules")
	return int32(len(s))
}

var (
	probeSmall   = []byte(`{"text":"hello"}`)
	probeLong    = []byte(`{"text":"` + strings.Repeat("abcdefgh", 128) + `"}`)
	probeNumbers = []byte(`{"sections":[{"order":1},{"order":100},{"order":200},{"order":300},{"order":400},{"order":500},{"order":600},{"order":700},{"order":800},{"order":900}]}`)
	probeNames   = []byte(`{"sections":[{"name":"a"},{"name":"b"},{"name":"c"},{"name":"d"},{"name":"e"},{"name":"f"},{"name":"g"},{"name":"h"},{"name":"i"},{"name":"j"}]}`)
)

//go:wasmexport probe_small
func probeSmallFn() int32 { var ev abi.InputEvent; _ = ev.DecodeJSON(probeSmall); return 0 }

//go:wasmexport probe_long
func probeLongFn() int32 { var ev abi.InputEvent; _ = ev.DecodeJSON(probeLong); return 0 }

//go:wasmexport probe_numbers
func probeNumbersFn() int32 { var ev abi.AssembleEvent; _ = ev.DecodeJSON(probeNumbers); return 0 }

//go:wasmexport probe_names
func probeNamesFn() int32 { var ev abi.AssembleEvent; _ = ev.DecodeJSON(probeNames); return 0 }
