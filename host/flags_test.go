package host

import (
	"context"
	"strings"
	"testing"

	"github.com/piwasm/pi/abi"
)

// A guest reads its flags the way a stock PDK reads config: Extism's
// config_get("flag:<name>"): the command line's value, else the
// manifest's default ("false" for a boolean without one); a string flag
// neither given nor defaulted is absent. The fetch key "flags" agrees.
func TestFlagsThroughConfigGet(t *testing.T) {
	ctx := context.Background()
	m := strings.Replace(hostileManifest, "mode: ok", "mode: extism-flags", 1) + `flags:
  - name: preset
    type: string
    default: plan
  - name: quiet
    type: boolean
  - name: unset
    type: string
`
	for _, tc := range []struct {
		given map[string]string
		want  string
	}{
		{nil, "flag:preset=plan flag:quiet=false flag:unset=<absent>"},
		{map[string]string{"preset": "review", "quiet": "true", "unset": "x"}, "flag:preset=review flag:quiet=true flag:unset=x"},
	} {
		rt, err := NewRuntime(ctx, Config{AgentDir: agentDir, ProjectRoot: projectRoot, Flags: map[string]map[string]string{"hostile": tc.given}})
		if err != nil {
			t.Fatal(err)
		}
		exts, diags := rt.Load(ctx, []string{pkg(t, "hostile", m)}, nil)
		for _, d := range diags {
			if d.Kind != DiagGrant {
				t.Fatalf("diagnostic: %s", d)
			}
		}
		res, err := exts[0].BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{}, nil)
		if err != nil || len(res.Ops) != 1 || res.Ops[0].Text != tc.want {
			t.Errorf("given %v: %+v %v; want %q", tc.given, res.Ops, err, tc.want)
		}
		if v := string(exts[0].flags); tc.given == nil && v != `{"preset":"plan","quiet":false}` {
			t.Errorf("fetch flags: %s", v)
		}
		rt.Close(ctx)
	}
}
