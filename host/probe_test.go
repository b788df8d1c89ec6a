package host

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/piwasm/pi/abi"
)

func BenchmarkProbe(b *testing.B) {
	ctx := context.Background()
	e := benchExt(b)
	full := realisticAssembly()
	wire := full
	wire.Sections = nil
	for _, s := range full.Sections {
		s.Bytes = len(s.Text)
		if len(s.Text) > abi.InlineTextMax {
			s.Text = ""
		}
		wire.Sections = append(wire.Sections, s)
	}
	ev, _ := json.Marshal(wire)
	b.Logf("wire event %d bytes", len(ev))
	fetch := func(k string) ([]byte, bool) { return []byte(full.Sections[2].Text), true }
	for _, name := range []string{"pi_abi_version", "probe_gosched", "probe_small", "probe_long", "probe_numbers", "probe_names"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				e.call = &callState{event: ev, fetch: fetch, maxOutput: 1 << 20}
				cctx, cancel := context.WithTimeout(ctx, time.Second)
				if rc, err := e.inst.call(cctx, name, nil); err != nil {
					b.Fatal(rc, err)
				}
				cancel()
			}
		})
	}
}
