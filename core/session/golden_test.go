package session

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/hooks"
	"github.com/piwasm/pi/core/provider"
)

var update = flag.Bool("update", false, "rewrite golden request bodies under testdata/golden")

// goldenBody compares a request body with testdata/golden/name, after
// replacing the temporary project path with <proj>.
func goldenBody(t *testing.T, name string, body []byte, proj string) {
	t.Helper()
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, body, "", "  "); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got := strings.ReplaceAll(pretty.String(), proj, "<proj>") + "\n"
	path := filepath.Join("testdata", "golden", name)
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Fatalf("%s differs from its golden file:\n%s", name, got)
	}
}

// TestExactRequestBodies records the exact bodies of a short session on
// both request shapes: first request, an unchanged second one, a changed
// AGENTS.md, and a forced prompt.
func TestExactRequestBodies(t *testing.T) {
	for _, shape := range []struct {
		name  string
		route func(string) provider.Route
	}{{"openai", openaiRoute}, {"anthropic", anthropicRoute}} {
		t.Run(shape.name, func(t *testing.T) {
			m := newMockModel(t)
			proj := t.TempDir()
			writeFile(t, filepath.Join(proj, "AGENTS.md"), "Use tabs.")
			path := filepath.Join(t.TempDir(), "s.jsonl")
			d := hooks.New([]hooks.Handler{forcer{}})
			steps := []struct{ file, input, agents string }{
				{"1-first", "hello", ""},
				{"2-unchanged", "again", ""},
				{"3-agents-changed", "third", "Use spaces."},
				{"4-forced", "?done", ""},
			}
			for i, st := range steps {
				if st.agents != "" {
					writeFile(t, filepath.Join(proj, "AGENTS.md"), st.agents)
				}
				r := newRunner(t, proj, path, shape.route(m.srv.URL), d)
				if _, err := r.Turn(context.Background(), Input{Text: st.input}, false); err != nil {
					t.Fatal(err)
				}
				m.mu.Lock()
				body := m.bodies[i]
				m.mu.Unlock()
				goldenBody(t, shape.name+"-"+st.file+".json", body, proj)
			}
		})
	}
}
