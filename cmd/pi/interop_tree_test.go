//go:build unix

package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/internal/scripted"
)

// TestInteropSessionTree runs both harnesses on one agent directory: a
// session the established harness branched with a branch summary (its
// /tree, driven through its own session code) and one it forked (its
// /fork) continue in pi with the same conversation as in that harness
// itself; a session pi branched with a summary and one pi forked continue
// in that harness with the same conversation as in pi.
func TestInteropSessionTree(t *testing.T) {
	node, peerCLI := peerHarness(t)
	// The package's entry point, for the script that drives its session
	// code: dist/bundle/cli.js -> dist/index.js.
	pkg := filepath.Join(filepath.Dir(filepath.Dir(peerCLI)), "index.js")
	script, err := filepath.Abs(filepath.Join("testdata", "interop", "peer-tree.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	c := newCLI(t)
	s := &scripted.Server{Fallback: "Noted, carrying on."}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	writeFiles(t, c.agentDir, map[string]string{
		"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"mock-1"}]}}}`,
	})
	peerEnv := c.peerEnv()
	peer := func(file, text string) {
		t.Helper()
		cmd := exec.Command(node, peerCLI, "-p", "--model", "mock/mock-1", "--session", file, text)
		cmd.Dir, cmd.Env = c.home, peerEnv
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the established harness failed on %q: %v\n%s", text, err, out)
		}
	}
	peerSession := func(op, file, id string) map[string]any {
		t.Helper()
		cmd := exec.Command(node, script, "file://"+pkg, op, file, id)
		cmd.Dir, cmd.Env = c.home, peerEnv
		out, err := cmd.Output()
		var res map[string]any
		if err != nil || json.Unmarshal(out, &res) != nil {
			t.Fatalf("the established harness's %s: %v\n%s", op, err, out)
		}
		return res
	}
	pi := func(file, text string) {
		t.Helper()
		if out, stderr, code := c.run("-p", "--model", "mock/mock-1", "--session", file, text); code != 0 {
			t.Fatalf("pi failed on %q: exit %d\n%s%s", text, code, out, stderr)
		}
	}
	piRPC := func(file string, cmds ...string) []map[string]any {
		t.Helper()
		rc := startRPC(t, c, "--model", "mock/mock-1", "--session", file)
		var out []map[string]any
		for i, cmd := range cmds {
			id := "c" + string(rune('0'+i))
			rc.send(`{"id":"` + id + `",` + cmd[1:])
			out = append(out, rc.response(id))
		}
		rc.in.Close()
		select {
		case <-rc.done:
		case <-time.After(60 * time.Second):
			t.Fatal("pi did not exit after its commands")
		}
		return out
	}
	userEntry := func(file, text string) string {
		t.Helper()
		tr, err := session.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range tr.ForkMessages() {
			if m.Text == text {
				return m.EntryID
			}
		}
		t.Fatalf("no user message %q in %s", text, file)
		return ""
	}
	// continueBoth continues copies of file in both harnesses and
	// compares the conversations they send.
	continueBoth := func(t *testing.T, file string, writer, reader func(string, string), writerName, readerName string) []string {
		t.Helper()
		dir := t.TempDir()
		mine, theirs := filepath.Join(dir, "own.jsonl"), filepath.Join(dir, "other.jsonl")
		for _, p := range []string{mine, theirs} {
			if err := os.WriteFile(p, []byte(readFile(t, file)), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		writer(mine, "second, reworded")
		own := conversationOf(t, lastConversationRequest(t, s))
		reader(theirs, "second, reworded")
		other := conversationOf(t, lastConversationRequest(t, s))
		if !reflect.DeepEqual(own, other) {
			t.Fatalf("%s's continuation differs from %s's own:\n%s: %q\n%s: %q", readerName, writerName, writerName, own, readerName, other)
		}
		return own
	}
	start := func(t *testing.T, write func(string, string)) string {
		file := filepath.Join(t.TempDir(), "s.jsonl")
		write(file, "first")
		write(file, "second")
		return file
	}
	const summaryOpening = "user: The following is a summary of a branch"

	t.Run("the established harness branches with a summary, pi continues", func(t *testing.T) {
		file := start(t, peer)
		res := peerSession("navigate", file, userEntry(file, "second"))
		if res["summaryId"] == nil || res["editorText"] != "second" {
			t.Fatalf("its navigation: %v", res)
		}
		conv := continueBoth(t, file, peer, pi, "the established harness", "pi")
		if !strings.HasPrefix(conv[2], summaryOpening) || len(conv) != 4 {
			t.Errorf("the continuation does not carry the branch summary in place of the branch: %q", conv)
		}
	})
	t.Run("the established harness forks, pi continues", func(t *testing.T) {
		file := start(t, peer)
		fork := peerSession("fork", file, userEntry(file, "second"))["path"].(string)
		if tr, err := session.Load(fork); err != nil || tr.Header.ParentSession != file {
			t.Fatalf("its fork: %v %+v", err, tr)
		}
		conv := continueBoth(t, fork, peer, pi, "the established harness", "pi")
		if len(conv) != 3 || !strings.Contains(conv[2], "second, reworded") {
			t.Errorf("the fork's continuation: %q", conv)
		}
	})
	t.Run("pi branches with a summary, the established harness continues", func(t *testing.T) {
		file := start(t, pi)
		res := piRPC(file, `{"type":"navigate_tree","targetId":"`+userEntry(file, "second")+`","summarize":true}`)
		if data(res[0])["summaryEntry"] == nil {
			t.Fatalf("pi's navigation: %v", res[0])
		}
		conv := continueBoth(t, file, pi, peer, "pi", "the established harness")
		if !strings.HasPrefix(conv[2], summaryOpening) || len(conv) != 4 {
			t.Errorf("the continuation does not carry the branch summary in place of the branch: %q", conv)
		}
	})
	t.Run("pi forks, the established harness continues", func(t *testing.T) {
		file := start(t, pi)
		res := piRPC(file, `{"type":"fork","entryId":"`+userEntry(file, "second")+`"}`, `{"type":"get_state"}`)
		fork := data(res[1])["sessionFile"].(string)
		if tr, err := session.Load(fork); err != nil || tr.Header.ParentSession != file {
			t.Fatalf("pi's fork: %v %+v", err, tr)
		}
		conv := continueBoth(t, fork, pi, peer, "pi", "the established harness")
		if len(conv) != 3 || !strings.Contains(conv[2], "second, reworded") {
			t.Errorf("the fork's continuation: %q", conv)
		}
	})
}
