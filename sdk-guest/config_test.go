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

// ConfigString and ConfigNumber read one value without encoding/json: absent
// and null are "not set", another type is an error naming the key.
func TestConfigStringAndNumber(t *testing.T) {
	t.Cleanup(func() { beforeAgentStart = nil })
	type got struct {
		s    string
		sok  bool
		serr error
		n    float64
		nok  bool
		nerr error
	}
	var g got
	OnBeforeAgentStart(func(ev *abi.BeforeAgentStartEvent, r *BeforeAgentStart) error {
		g = got{}
		g.s, g.sok, g.serr = ConfigString("name")
		g.n, g.nok, g.nerr = ConfigNumber("order")
		return nil
	})
	for _, c := range []struct {
		config string
		s      string
		sok    bool
		n      float64
		nok    bool
		errs   int
	}{
		{"", "", false, 0, false, 0},
		{"null", "", false, 0, false, 0},
		{`{}`, "", false, 0, false, 0},
		{`{"name":null,"order":null}`, "", false, 0, false, 0},
		{`{"name":"team \"a\"","order":-2.5e1}`, `team "a"`, true, -25, true, 0},
		{`{"name":7,"order":"250"}`, "", false, 0, false, 2},
	} {
		h := Harness{Config: c.config}
		if _, err := h.BeforeAgentStart(abi.BeforeAgentStartEvent{}); err != nil {
			t.Fatal(err)
		}
		errs := 0
		for _, err := range []error{g.serr, g.nerr} {
			if err != nil {
				errs++
			}
		}
		if g.s != c.s || g.sok != c.sok || g.n != c.n || g.nok != c.nok || errs != c.errs {
			t.Errorf("config %q: got %+v", c.config, g)
		}
	}
}

// Flag reads the flags object without encoding/json: booleans as "true" or
// "false", strings as given, anything else or an undeclared name absent.
func TestFlagValues(t *testing.T) {
	t.Cleanup(func() { beforeAgentStart = nil })
	type flag struct {
		v  string
		ok bool
	}
	got := map[string]flag{}
	OnBeforeAgentStart(func(ev *abi.BeforeAgentStartEvent, r *BeforeAgentStart) error {
		for _, n := range []string{"plan", "quiet", "mode", "empty", "missing"} {
			v, ok, err := Flag(n)
			if err != nil {
				return err
			}
			got[n] = flag{v, ok}
		}
		return nil
	})
	h := Harness{Flags: map[string]string{"plan": "true", "quiet": "false", "mode": `fast "x"`, "empty": ""}}
	if _, err := h.BeforeAgentStart(abi.BeforeAgentStartEvent{}); err != nil {
		t.Fatal(err)
	}
	want := map[string]flag{"plan": {"true", true}, "quiet": {"false", true}, "mode": {`fast "x"`, true}, "empty": {"", true}, "missing": {"", false}}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("Flag(%q) = %+v, want %+v", n, got[n], w)
		}
	}
	if !FlagOn("plan") || FlagOn("quiet") || FlagOn("mode") {
		t.Error("FlagOn")
	}
}
