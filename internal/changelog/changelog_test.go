package changelog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sample = `# Changelog

Intro text.

## [0.3.0] - unreleased

### Added
- compaction

## [0.2.0] - 2026-11-30

- the loop

## 0.1.0

- prompts
`

func TestParseAndNewer(t *testing.T) {
	es := Parse(sample)
	if len(es) != 3 || es[0].Version != "0.3.0" || es[2].Version != "0.1.0" || !strings.Contains(es[0].Body, "compaction") || strings.Contains(es[0].Body, "the loop") {
		t.Fatalf("parsed %+v", es)
	}
	if n := Newer(es, "0.1.0"); len(n) != 2 || n[1].Version != "0.2.0" {
		t.Errorf("newer than 0.1.0: %+v", n)
	}
	if n := Newer(es, "0.3.0"); len(n) != 0 {
		t.Errorf("newer than the newest: %+v", n)
	}
}

func TestCompare(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
		ok   bool
	}{{"0.3.0", "0.2.9", 1, true}, {"0.10.0", "0.9.0", 1, true}, {"1.0", "1.0.0", 0, true}, {"v1.2.0", "1.3.0", -1, true}, {"0.3.0-dev", "0.3.0", 0, true}, {"x", "1.0.0", 0, false}} {
		got, ok := Compare(c.a, c.b)
		if got != c.want || ok != c.ok {
			t.Errorf("Compare(%q, %q) = %d %v", c.a, c.b, got, ok)
		}
	}
}

func TestWhatsNewOncePerUpgrade(t *testing.T) {
	dir := t.TempDir()
	if s, err := WhatsNew(dir, sample, "0.2.0", false); err != nil || s != "" {
		t.Fatalf("first start shows %q, %v", s, err)
	}
	if s, _ := WhatsNew(dir, sample, "0.2.0", false); s != "" {
		t.Fatalf("same version again shows %q", s)
	}
	s, err := WhatsNew(dir, sample, "0.3.0", false)
	if err != nil || !strings.Contains(s, "compaction") || strings.Contains(s, "the loop") {
		t.Fatalf("after the upgrade: %q %v", s, err)
	}
	if s, _ := WhatsNew(dir, sample, "0.3.0", false); s != "" {
		t.Fatalf("shown twice: %q", s)
	}
	os.WriteFile(filepath.Join(dir, MarkerName), []byte("0.1.0\n"), 0o644)
	if s, _ := WhatsNew(dir, sample, "0.3.0", true); !strings.Contains(s, "/changelog") || strings.Contains(s, "compaction") {
		t.Errorf("collapsed: %q", s)
	}
	os.WriteFile(filepath.Join(dir, MarkerName), []byte("garbage"), 0o644)
	if s, _ := WhatsNew(dir, sample, "0.3.0", false); s != "" {
		t.Errorf("garbage marker shows %q", s)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, MarkerName)); strings.TrimSpace(string(b)) != "0.3.0" {
		t.Errorf("garbage marker not replaced: %q", b)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(sample)
	f.Add("## [\n## []\n## v\n")
	f.Fuzz(func(t *testing.T, md string) {
		for _, e := range Parse(md) {
			if _, ok := parse(e.Version); !ok {
				t.Fatalf("entry with a bad version %q", e.Version)
			}
		}
	})
}
