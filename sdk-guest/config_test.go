//go:build !wasip1

package sdk

import (
	"testing"

	"github.com/piwasm/pi/abi"
)

// The handler of docs/extensions.md ("A complete extension"), word for word:
// a manifest without config must not make it panic.
type docConfig struct {
	Text string `json:"text"`
}

var (
	docCfg    docConfig
	docLoaded bool
)

func docHandler(ev *abi.BeforeAgentStartEvent, r *BeforeAgentStart) error {
	if !docLoaded {
		if err := Config(&docCfg); err != nil {
			return err
		}
		docLoaded = true
	}
	if docCfg.Text != "" {
		r.SetSection("team", docCfg.Text, Order(250)) // between rules (200) and docs (300)
	}
	return nil
}

func TestDocExampleWithAndWithoutConfig(t *testing.T) {
	t.Cleanup(func() { beforeAgentStart = nil })
	OnBeforeAgentStart(docHandler)
	cases := []struct {
		config string
		ops    int
	}{
		{"", 0},
		{"null", 0},
		{`{"text":"reviews first"}`, 1},
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		docCfg, docLoaded = docConfig{}, false
		h := Harness{Config: c.config}
		res, err := h.BeforeAgentStart(abi.BeforeAgentStartEvent{})
		if err != nil || len(res.Ops) != c.ops {
			t.Errorf("config %q: %d ops, %v; want %d ops", c.config, len(res.Ops), err, c.ops)
		}
	}
}

// A manifest without config leaves what v points at alone, even a pointer
// that was set before (decoding null would have reset it to nil).
func TestConfigNullLeavesValueAlone(t *testing.T) {
	t.Cleanup(func() { beforeAgentStart = nil })
	type conf struct{ Text string }
	set := &conf{Text: "default"}
	OnBeforeAgentStart(func(ev *abi.BeforeAgentStartEvent, r *BeforeAgentStart) error {
		return Config(&set)
	})
	for _, raw := range []string{"", "null"} {
		h := Harness{Config: raw}
		if _, err := h.BeforeAgentStart(abi.BeforeAgentStartEvent{}); err != nil {
			t.Fatal(err)
		}
		if set == nil || set.Text != "default" {
			t.Fatalf("config %q changed v: %+v", raw, set)
		}
	}
}
