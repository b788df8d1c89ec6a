package compact

import (
	"testing"

	"github.com/piwasm/pi/core/settings"
)

// FromValues reads what the settings files set, and with none set gives
// what Parse gives for an empty object.
func TestFromValues(t *testing.T) {
	reg := settings.Builtin()
	empty, err := Parse([]byte(`{}`), "p", "m")
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		file string
		want Settings
	}{
		"none":     {"", empty},
		"other":    {`{"branchSummary": {"reserveTokens": 5}}`, empty},
		"reserve":  {`{"compaction": {"reserveTokens": 1000}}`, Settings{Enabled: true, ReserveTokens: 1000, KeepRecentTokens: 20000}},
		"disabled": {`{"compaction": {"enabled": false}}`, Settings{ReserveTokens: 16384, KeepRecentTokens: 20000}},
		"override": {`{"compaction": {"modelOverrides": {"p/m": {"keepRecentTokens": 7}}}}`, Settings{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 7}},
	} {
		var layers []settings.Layer
		if c.file != "" {
			l, ds := settings.Parse(reg, "settings.json", "user", []byte(c.file))
			if len(ds) > 0 {
				t.Fatalf("%s: %v", name, ds)
			}
			layers = append(layers, l)
		}
		got, err := FromValues(settings.New(reg, layers...), "p", "m")
		if err != nil || got != c.want {
			t.Errorf("%s: %+v, %v; want %+v", name, got, err, c.want)
		}
	}
	if _, err := FromValues(settings.New(reg, mustLayer(t, reg, `{"compaction": {"modelOverrides": {"p/m": {"reserveTokens": -1}}}}`)), "p", "m"); err == nil {
		t.Error("a negative reserve was accepted")
	}
}

func mustLayer(t *testing.T, reg *settings.Registry, data string) settings.Layer {
	l, _ := settings.Parse(reg, "settings.json", "user", []byte(data))
	return l
}

// BenchmarkFromValuesUnset is FromValues where no file sets compaction,
// as in most runs.
func BenchmarkFromValuesUnset(b *testing.B) {
	s := settings.New(settings.Builtin())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromValues(s, "p", "m"); err != nil {
			b.Fatal(err)
		}
	}
}
