//go:build !wasip1

package sdk

import (
	"strings"
	"testing"

	"github.com/piwasm/pi/abi"
)

func TestHarnessAnswersQuestions(t *testing.T) {
	t.Cleanup(func() { delete(commands, "ask") })
	Command("ask", func(ev *abi.CommandEvent) (abi.CommandResult, error) {
		c, ok := Select("pick", "a", "b")
		if !ok {
			return abi.CommandResult{Show: "none"}, nil
		}
		name, _ := AskInput("name?", "")
		yes := Confirm("sure?", "")
		Notify("warning", "asked")
		return abi.CommandResult{Show: c + " " + name + " " + map[bool]string{true: "yes", false: "no"}[yes]}, nil
	})
	h := &Harness{Answer: func(kind string, r abi.UIRequest) (string, bool) {
		switch kind {
		case "select":
			return r.Options[1], true
		case "input":
			return "Ada", true
		}
		return "yes", true
	}}
	res, err := h.Command(abi.CommandEvent{Name: "ask"})
	if err != nil || res.Show != "b Ada yes" {
		t.Fatalf("%+v %v", res, err)
	}
	if got := strings.Join(h.Asked, "|"); got != "select: pick|input: name?|confirm: sure?|notify: asked" {
		t.Fatalf("asked %q", got)
	}
	// Without Answer every question gets the default, as in print mode.
	res, err = (&Harness{}).Command(abi.CommandEvent{Name: "ask"})
	if err != nil || res.Show != "none" {
		t.Fatalf("defaults: %+v %v", res, err)
	}
}
