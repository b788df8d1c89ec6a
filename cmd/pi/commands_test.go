package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/spf13/pflag"
)

// The established harness's commands and near misses of pi's own never
// reach a model: the loopback model counts every request it gets.
func TestSubcommandsNeverReachTheModel(t *testing.T) {
	c := newCLI(t)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"sent\"}}]}\n\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))
	}))
	t.Cleanup(srv.Close)
	writeFiles(t, c.agentDir, map[string]string{"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"mock-1"}]}}}`})
	proj := t.TempDir()
	// The package commands: list answers, install of a bare word says how
	// to write a source.
	if out, errs, code := c.run("list"); code != 0 || !strings.Contains(out, "no packages installed") {
		t.Errorf("pi list: exit %d, %q %q", code, out, errs)
	}
	if _, errs, code := c.run("install", "x"); code != 1 || !strings.Contains(errs, "write npm:NAME") {
		t.Errorf("pi install x: exit %d, stderr %q", code, errs)
	}
	// The others may get their meaning from other work; none may reach the model.
	for _, args := range [][]string{{"remove", "x"}, {"uninstall", "x"}, {"update"}, {"update", "--help"}, {"config"}, {"mcp", "add", "foo", "--", "echo", "hi"}, {"mcp", "list"}} {
		c.run(append(args, "--cwd", proj)...)
	}
	// A typo of a command gets "did you mean".
	for word, near := range map[string]string{"lsit": "list", "instal": "install", "resouces": "resources", "sesion": "session"} {
		_, errs, code := c.run(word, "--cwd", proj)
		if code != exitUsage || !strings.Contains(errs, "did you mean pi "+near+"?") {
			t.Errorf("pi %s: exit %d, stderr %q", word, code, errs)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("the model was called %d times", n)
	}
	// Words that are not near a command, and anything after --, are messages.
	for _, args := range [][]string{{"-p", "--", "list"}, {"-p", "hello"}, {"-p", "fix it"}} {
		before := calls.Load()
		out, errs, code := c.run(append([]string{"--cwd", proj, "--no-session"}, args...)...)
		if code != 0 || out != "sent\n" || calls.Load() != before+1 {
			t.Errorf("pi %v: exit %d, out %q, stderr %q", args, code, out, errs)
		}
	}
}

// pi --help lists every option of the main mode, with its short form.
func TestHelpListsEveryOption(t *testing.T) {
	c := newCLI(t)
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"-p", "--help"}} {
		out, errs, code := c.run(args...)
		if code != 0 {
			t.Fatalf("pi %v: exit %d: %s", args, code, errs)
		}
		mainFlags().VisitAll(func(f *pflag.Flag) {
			if !strings.Contains(out, "--"+f.Name+" ") && !strings.Contains(out, "--"+f.Name+"\n") {
				t.Errorf("pi %v: --%s missing", args, f.Name)
			}
		})
		for _, want := range []string{"-p, --print", "-c, --continue", "-nt, --no-tools", "-xt, --exclude-tools", "Examples:", "pi -p \"Summarise the README\"", "Model and thinking:", "Sessions:", "Tools:"} {
			if !strings.Contains(out, want) {
				t.Errorf("pi %v: %q missing", args, want)
			}
		}
	}
}

func TestTypoOf(t *testing.T) {
	for word, want := range map[string]string{
		"lsit": "list", "lits": "list", "instal": "install", "updte": "update", "mpc": "mcp", "confg": "config",
		"fix": "", "hello": "", "test": "", "explain": "", "./list": "", "List": "", "ls": "", "listing": "",
	} {
		if got := typoOf(word); got != want {
			t.Errorf("typoOf(%q) = %q, want %q", word, got, want)
		}
	}
}
