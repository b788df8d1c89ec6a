package main

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// The established harness's 78 example extensions, each run in pi -p and
// in that harness against the same scripted model: pi must load every one
// (exit 0), and for those that draw no TUI of their own the effect on the
// model's request must be the same in both (tools added, system prompt
// lines added). Run with `make examples-ts` (it sets PI_EXAMPLES_TS=1);
// PI_EXAMPLES_REPORT=FILE writes the table.

// tuiExample reports whether an example draws its own terminal UI (custom
// components, overlays, editors, renderers), which pi runs degraded.
func tuiExample(src string) bool {
	for _, s := range []string{"ctx.ui.custom", "pi-tui", "setEditorComponent", "registerMessageRenderer", "renderCall", "setFooter", "setHeader", "registerProvider"} {
		if strings.Contains(src, s) {
			return true
		}
	}
	return false
}

// exampleSource is the example's TypeScript, all files of a directory.
func exampleSource(path string) string {
	var b strings.Builder
	filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".ts") && !strings.Contains(p, "node_modules") {
			s, _ := os.ReadFile(p)
			b.Write(s)
		}
		return nil
	})
	return b.String()
}

// requestEffect is what a harness's first request shows of its
// extensions: the tools declared and the system prompt's lines.
type requestEffect struct {
	Tools []string
	Lines []string
}

func effectOf(body []byte) (requestEffect, error) {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Function struct{ Name string } `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return requestEffect{}, err
	}
	var e requestEffect
	for _, t := range req.Tools {
		e.Tools = append(e.Tools, t.Function.Name)
	}
	for _, m := range req.Messages {
		if m.Role != "system" && m.Role != "developer" {
			continue
		}
		var text string
		if json.Unmarshal(m.Content, &text) != nil {
			var parts []struct{ Text string }
			json.Unmarshal(m.Content, &parts)
			for _, p := range parts {
				text += p.Text
			}
		}
		for _, l := range strings.Split(text, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				e.Lines = append(e.Lines, l)
			}
		}
	}
	sort.Strings(e.Tools)
	return e, nil
}

// added is what ext has that base has not (the date and working
// directory lines differ between runs and harnesses and are left out).
func added(base, ext []string) []string {
	out := []string{}
	for _, s := range ext {
		if !slices.Contains(base, s) && !strings.HasPrefix(s, "Current date") && !strings.HasPrefix(s, "Current working directory") {
			out = append(out, s)
		}
	}
	return out
}

type exampleRow struct {
	Name, Kind           string
	PiExit               int
	PiErr                string
	PeerExit             int
	ToolsPi, ToolsPeer   []string
	PromptPi, PromptPeer []string
	Same                 bool
	Unsupported          []string
}

func TestEstablishedExamples(t *testing.T) {
	if os.Getenv("PI_EXAMPLES_TS") == "" {
		t.Skip("the 78 examples run with make examples-ts (PI_EXAMPLES_TS=1)")
	}
	node, peerCLI := peerHarness(t)
	dir := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(peerCLI))), "examples", "extensions")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("no examples: %v", err)
	}
	var examples []string
	for _, e := range entries {
		if e.IsDir() || strings.HasSuffix(e.Name(), ".ts") {
			examples = append(examples, filepath.Join(dir, e.Name()))
		}
	}

	// run runs one harness with -e ext ("" for none) and returns its exit
	// code, stderr and the effect on the first request.
	run := func(c *cli, peer bool, ext string) (int, string, requestEffect) {
		s := &scripted.Server{Fallback: "done"}
		srv := httptest.NewServer(s)
		defer srv.Close()
		writeFiles(t, c.agentDir, map[string]string{"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"mock-1"}]}}}`})
		args := []string{"-p", "--no-session", "--model", "mock/mock-1"}
		if ext != "" {
			args = append(args, "-e", ext)
		}
		args = append(args, "say hello")
		var code int
		var stderr string
		if peer {
			cmd := exec.Command(node, append([]string{peerCLI}, args...)...)
			cmd.Dir = c.home
			cmd.Env = c.peerEnv()
			out, err := cmd.CombinedOutput()
			stderr = string(out)
			if err != nil {
				code = 1
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				}
			}
		} else {
			_, stderr, code = c.runExt("", false, c.home, args...)
		}
		var e requestEffect
		if reqs := s.Requests(); len(reqs) > 0 {
			e, _ = effectOf(reqs[0])
		}
		return code, stderr, e
	}

	baseC := newCLI(t)
	_, _, piBase := run(baseC, false, "")
	_, _, peerBase := run(baseC, true, "")

	rows := make([]exampleRow, len(examples))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, ex := range examples {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			c := newCLI(t)
			r := exampleRow{Name: strings.TrimSuffix(filepath.Base(ex), ".ts"), Kind: "plain"}
			if tuiExample(exampleSource(ex)) {
				r.Kind = "tui"
			}
			var pi, peer requestEffect
			r.PiExit, r.PiErr, pi = run(c, false, ex)
			r.PeerExit, _, peer = run(c, true, ex)
			r.ToolsPi, r.ToolsPeer = added(piBase.Tools, pi.Tools), added(peerBase.Tools, peer.Tools)
			r.PromptPi, r.PromptPeer = added(piBase.Lines, pi.Lines), added(peerBase.Lines, peer.Lines)
			r.Same = slices.Equal(r.ToolsPi, r.ToolsPeer) && slices.Equal(r.PromptPi, r.PromptPeer)
			out, _, _ := c.runExt("", false, c.home, "ext", "list", "--json", "-e", ex)
			var l struct {
				Extensions []struct{ Unsupported []string }
			}
			if json.Unmarshal([]byte(out), &l) == nil {
				for _, e := range l.Extensions {
					r.Unsupported = append(r.Unsupported, e.Unsupported...)
				}
			}
			rows[i] = r
		}()
	}
	wg.Wait()

	var report strings.Builder
	loaded, same, plain := 0, 0, 0
	fmt.Fprintf(&report, "| example | kind | pi exit | peer exit | same effect | tools added (pi / peer) | prompt lines added (pi / peer) | unsupported |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		if r.PiExit == 0 {
			loaded++
		}
		if r.Kind == "plain" {
			plain++
			if r.Same && r.PiExit == 0 {
				same++
			}
		}
		fmt.Fprintf(&report, "| %s | %s | %d | %d | %v | %v / %v | %d / %d | %s |\n", r.Name, r.Kind, r.PiExit, r.PeerExit, r.Same, r.ToolsPi, r.ToolsPeer, len(r.PromptPi), len(r.PromptPeer), strings.Join(r.Unsupported, " "))
	}
	fmt.Fprintf(&report, "\nloaded in pi -p: %d of %d; same effect as the established harness: %d of %d without a TUI of their own\n", loaded, len(rows), same, plain)
	if f := os.Getenv("PI_EXAMPLES_REPORT"); f != "" {
		os.WriteFile(f, []byte(report.String()), 0o644)
	}
	t.Log("\n" + report.String())
	for _, r := range rows {
		if r.PiExit != 0 {
			t.Errorf("%s: pi -p exits %d: %.400s", r.Name, r.PiExit, r.PiErr)
		} else if r.Kind == "plain" && !r.Same {
			t.Errorf("%s: effect differs: tools %v vs %v; prompt lines %q vs %q", r.Name, r.ToolsPi, r.ToolsPeer, r.PromptPi, r.PromptPeer)
		}
	}
}
