package session

import (
	"strings"
	"testing"

	"github.com/piwasm/pi/core/provider"
)

func TestKeepSystemKeepsSystemMessagesInPlace(t *testing.T) {
	msg := func(role, text string) provider.Message { return provider.Message{Role: role, Content: text} }
	orig := []provider.Message{msg("system", "S1"), msg("user", "u1"), msg("assistant", "a1"), msg("system", "S2"), msg("user", "u2")}
	texts := func(ms []provider.Message) string {
		var b []string
		for _, m := range ms {
			b = append(b, m.Content)
		}
		return strings.Join(b, ",")
	}
	conv := []provider.Message{msg("user", "u1"), msg("assistant", "a1"), msg("user", "u2")}
	cases := []struct {
		name string
		conv []provider.Message
		want string
	}{
		{"unchanged", conv, "S1,u1,a1,S2,u2"},
		{"dropped", conv[2:], "S1,u2,S2"},
		{"added", append([]provider.Message{msg("user", "note")}, conv...), "S1,note,u1,S2,a1,u2"},
		{"emptied", nil, "S1,S2"},
	}
	for _, c := range cases {
		if got := texts(keepSystem(orig, c.conv)); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
