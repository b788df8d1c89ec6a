package main

import (
	"bufio"
	"encoding/json"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// TestToolResultDetailsAsPeer runs the same read, edit and bash calls
// through pi and the established harness and compares the tool results
// they report (message_end of each toolResult): the details — the edit's
// diff and patch, the truncation record of a long read and of a long
// command's output, the file with the whole output — and whether a
// duration is recorded. Only what differs by nature is set aside: the
// duration's value, the output file's name, and the kept text the
// established harness copies into its truncation record (pi leaves it in
// the content).
func TestToolResultDetailsAsPeer(t *testing.T) {
	node, peerCLI := peerHarness(t)
	c := newCLI(t)
	files := map[string]string{"a.txt": "alpha\nbeta\ngamma\n", "big.txt": strings.Repeat("line of text\n", 2100)}
	s := &scripted.Server{Restart: true, Replies: []scripted.Reply{
		{Calls: []scripted.Call{{ID: "r1", Name: "read", Args: json.RawMessage(`{"path":"a.txt"}`)}, {ID: "r2", Name: "read", Args: json.RawMessage(`{"path":"big.txt"}`)}}},
		{Calls: []scripted.Call{{ID: "e1", Name: "edit", Args: json.RawMessage(`{"path":"a.txt","edits":[{"oldText":"beta","newText":"BETA"}]}`)}}},
		{Calls: []scripted.Call{{ID: "b1", Name: "bash", Args: json.RawMessage(`{"command":"seq 1 3000"}`)}, {ID: "b2", Name: "bash", Args: json.RawMessage(`{"command":"echo hi; exit 3"}`)}}},
		{Text: "done"},
	}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	writeFiles(t, c.agentDir, map[string]string{
		"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"m"}]}}}`,
	})
	args := []string{"--mode", "json", "-p", "--no-session", "--model", "mock/m", "hi"}
	writeFiles(t, c.home, files)
	out, stderr, code := c.run(args...)
	if code != 0 {
		t.Fatalf("pi: exit %d\n%s", code, stderr)
	}
	writeFiles(t, c.home, files)
	cmd := exec.Command(node, append([]string{peerCLI}, args...)...)
	cmd.Dir = c.home
	cmd.Env = c.peerEnv()
	peerOut, err := cmd.Output()
	if err != nil {
		t.Fatalf("the established harness: %v", err)
	}
	got, want := toolResultFacts(t, out), toolResultFacts(t, string(peerOut))
	if len(want) != 5 {
		t.Fatalf("the established harness reported %d results: %v", len(want), want)
	}
	for id, w := range want {
		if g := got[id]; g != w {
			t.Errorf("%s:\n  pi: %s\npeer: %s", id, g, w)
		}
	}
}

// toolResultFacts maps each toolResult of a JSON-mode stream to its
// details (as JSON, keys in order, with the set-aside members blanked) and
// whether it records a duration.
func toolResultFacts(t *testing.T, stream string) map[string]string {
	t.Helper()
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(stream))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var ev struct {
			Type    string `json:"type"`
			Message struct {
				Role       string          `json:"role"`
				ToolCallID string          `json:"toolCallId"`
				Details    json.RawMessage `json:"details"`
				DurationMs *int64          `json:"durationMs"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Type != "message_end" || ev.Message.Role != "toolResult" {
			continue
		}
		d := string(ev.Message.Details)
		var keyed map[string]any
		if json.Unmarshal(ev.Message.Details, &keyed) == nil {
			if tr, ok := keyed["truncation"].(map[string]any); ok {
				delete(tr, "content")
			}
			if _, ok := keyed["fullOutputPath"]; ok {
				keyed["fullOutputPath"] = "_"
			}
			// Keys in the order they came, values after the blanking.
			d = orderedJSON(t, ev.Message.Details, keyed)
		}
		out[ev.Message.ToolCallID] = d + " durationMs:" + boolWord(ev.Message.DurationMs != nil)
	}
	return out
}

// orderedJSON writes v with the key order of raw at every level.
func orderedJSON(t *testing.T, raw json.RawMessage, v any) string {
	t.Helper()
	obj, ok := v.(map[string]any)
	if !ok {
		b, _ := json.Marshal(v)
		return string(b)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.Token() // {
	var b strings.Builder
	b.WriteByte('{')
	for dec.More() {
		tok, _ := dec.Token()
		key := tok.(string)
		var sub json.RawMessage
		if err := dec.Decode(&sub); err != nil {
			t.Fatal(err)
		}
		val, kept := obj[key]
		if !kept {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
		b.WriteString(orderedJSON(t, sub, val))
	}
	b.WriteByte('}')
	return b.String()
}

func boolWord(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}
