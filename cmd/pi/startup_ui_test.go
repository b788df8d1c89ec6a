//go:build unix

package main

import (
	"strings"
	"testing"
	"time"
)

// The start-up header and the listing of what loaded follow quietStartup
// (true: neither; "header": the header alone) and --verbose (everything,
// with every key and full paths, whatever quietStartup says), as in the
// established harness; display settings out of range are reported.
func TestStartupListingQuietAndVerbose(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	scriptedModel(t, c, "openai-completions", nil)
	writeFiles(t, c.agentDir, map[string]string{
		"AGENTS.md":            "Be brief.",
		"skills/tidy/SKILL.md": "---\nname: tidy\ndescription: tidy the code\n---\nTidy.",
		"prompts/review.md":    "Review it.",
		"prompts/fixit.md":     "Fix it.",
	})
	writeFiles(t, proj, map[string]string{"AGENTS.md": "Use tabs."})
	header, keys := "escape aborts · ctrl+c twice quits", "app.model.cycleForward"
	for _, tc := range []struct {
		settings string
		args     []string
		want     []string
		not      []string
		// resumes: leaving prints how to resume (full-screen mode).
		resumes bool
	}{
		{`{}`, nil, []string{header, "[Context]", "AGENTS.md", "[Skills]", "tidy", "[Prompts]", "/fixit, /review"}, []string{keys, "SKILL.md"}, false},
		{`{"quietStartup": true}`, nil, nil, []string{header, "[Context]", "[Skills]", "ignored-setting"}, false},
		{`{"quietStartup": "header"}`, nil, []string{header}, []string{"[Context]", "[Skills]", "[Prompts]"}, false},
		{`{"quietStartup": true}`, []string{"--verbose"}, []string{keys, "[Skills]", "skills/tidy/SKILL.md", "/review  ", "[Context]"}, nil, false},
		{`{"enabledModels": ["mock/*"]}`, nil, []string{"Model scope: mock/mock-1"}, nil, false},
		{`{"quietStartup": "header", "enabledModels": ["mock/*"]}`, nil, []string{header}, []string{"Model scope"}, false},
		{`{"editorPaddingX": 7, "quietStartup": true}`, nil, []string{"editorPaddingX", "from 0 to 3; 3 applies", "   > Ask pi"}, nil, false},
		// tuiMode draws full-screen, which leaves the transcript and the
		// resume command behind; --tui-mode wins over it.
		{`{"tuiMode": "fullscreen"}`, nil, []string{header}, nil, true},
		{`{"tuiMode": "fullscreen"}`, []string{"--tui-mode", "regular"}, []string{header}, nil, false},
	} {
		writeFiles(t, c.agentDir, map[string]string{"settings.json": tc.settings})
		tm := startTerminal(t, c, proj, append([]string{"--cwd", proj}, tc.args...)...)
		s := tm.waitFor("Ask pi")
		// The listing is drawn before the editor: a moment for the
		// rest of the first frame.
		time.Sleep(150 * time.Millisecond)
		s = tm.screen()
		for _, w := range tc.want {
			if !strings.Contains(squeeze(s), squeeze(w)) {
				t.Errorf("%s %v: no %q on screen:\n%s", tc.settings, tc.args, w, s)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(s, n) {
				t.Errorf("%s %v: %q on screen:\n%s", tc.settings, tc.args, n, s)
			}
		}
		if tc.want != nil && strings.Contains(tc.want[len(tc.want)-1], "> Ask pi") && !strings.Contains(s, "\n   > Ask pi") {
			t.Errorf("the editor is not padded by three columns:\n%s", s)
		}
		tm.press("\x04")
		if !tm.exited(30 * time.Second) {
			t.Fatalf("ctrl+d did not quit:\n%s", tm.screen())
		}
		after := tm.screen()
		if got := strings.Contains(after, "To resume this session:") && strings.Contains(after, "pi --session "+c.agentDir); got != tc.resumes {
			t.Errorf("%s %v: resume command printed: %v, want %v:\n%s", tc.settings, tc.args, got, tc.resumes, after)
		}
		if tc.resumes && strings.Count(after, "/hotkeys keys") != 1 {
			t.Errorf("%s: the transcript (with the header) is not left behind once:\n%s", tc.settings, after)
		}
	}
}
