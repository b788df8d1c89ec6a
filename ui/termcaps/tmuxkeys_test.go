package termcaps

import (
	"strings"
	"testing"
)

func TestTmuxKeysWarning(t *testing.T) {
	for _, tc := range []struct {
		name, tmux, keys, format, want string
		asked                          bool
	}{
		{name: "outside tmux", keys: "off", asked: true},
		{name: "off", tmux: "/tmp/t,1,0", keys: "off", asked: true, want: "extended-keys on"},
		{name: "on", tmux: "/tmp/t,1,0", keys: "on", format: "csi-u", asked: true},
		{name: "always, xterm format", tmux: "/tmp/t,1,0", keys: "always", format: "xterm", asked: true, want: "extended-keys-format csi-u"},
		{name: "tmux does not answer", tmux: "/tmp/t,1,0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := func(k string) string {
				if k == "TMUX" {
					return tc.tmux
				}
				return ""
			}
			show := func(o string) (string, bool) {
				if o == "extended-keys" {
					return tc.keys, tc.asked
				}
				return tc.format, tc.asked
			}
			got := TmuxKeysWarning(env, show)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want one naming %q", got, tc.want)
			}
		})
	}
}
